"""The candidate search of CoSimLex as a run: its declared stage planned against the store and run on Beam."""
from companions.cosimlex.contexts import default_spacy_model
from companions.cosimlex.declarations import Candidates
from companions.cosimlex.encoders import make_encoder
from companions.cosimlex.simlex import read_simlex
from companions.cosimlex.stage_names import CANDIDATES
from picforge.croissant import dump_inputs
from picforge.errors import InputError
from picforge.options import pipeline_options
from picforge.rundir import RunDir, input_identity, writable_folder
from picforge.stage_jobs import declared_steps, run_steps


def find_candidates(pairs_path, out, mined_run, options, *, beam_args, force):
    """Stages `cosimlex-contexts` and `cosimlex-candidates` in the run `out`, from the sentences of the mined run
    `mined_run` (an upstream stage of another run, counted by its fingerprint), with `options` (CandidatesOptions):
    (pairs, their manifests, pairs with candidates, the candidates' folder); the scorers are checked before Beam
    starts."""
    pairs = read_simlex(pairs_path)
    if not options.scorer:
        raise InputError("--scorer: name at least one encoder, e.g. --scorer minilm --scorer tok2vec")
    options = options.resolved(options.spacy_model or default_spacy_model(options.lang))
    for spec in options.scorer:
        make_encoder(spec, options.spacy_model)
    mined = RunDir(mined_run)
    sources = {"pairs": (pairs, input_identity(pairs_path, "--pairs")), "dump": (None, dump_inputs(mined).get("dump"))}
    run_dir = RunDir(writable_folder(out))
    steps = declared_steps(run_dir, [Candidates], options, sources, elsewhere={"sentences": mined})
    manifests = run_steps(run_dir, steps, pipeline_options=pipeline_options(beam_args), force=force)
    with_candidates = len(set(run_dir.read_table(CANDIDATES, columns=["pair_id"]).column("pair_id").to_pylist())) \
        if manifests[CANDIDATES]["records"] else 0
    return pairs, manifests, with_candidates, run_dir.stage_dir(CANDIDATES)
