"""`picforge cosimlex candidates --run MINED_RUN --out COSIMLEX_RUN`: contexts of every SimLex pair in a mined run's
sentences, and the encoders' candidates."""
from companions.cosimlex.declarations import CandidatesOptions
from picforge.options import add_run_option, options_from_args
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge cosimlex candidates`: the pairs, the runs read and written, and the candidate
    stage's declared options."""
    parser.add_argument("--pairs", required=True, help="SimLex-999.txt (10 columns) or 'word1 word2 score' file")
    add_run_option(parser, "the `sentences` stage `picforge mine` wrote (local, gs:// or s3://)")
    add_flags(parser, CandidatesOptions)
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")


def run(args):
    from companions.cosimlex.candidates import find_candidates
    from companions.cosimlex.stage_names import CANDIDATES, CONTEXTS
    pairs, manifests, with_candidates, where = find_candidates(
        args.pairs, args.out, args.run, options_from_args(CandidatesOptions, args), beam_args=args.beam_args,
        force=args.force)
    print(f"{len(pairs)} pairs; {manifests[CONTEXTS]['records']} contexts; "
          f"{manifests[CANDIDATES]['records']} candidates for {with_candidates} pairs in {where}")
    return 0


VERB = verbs.register(verbs.Verb(
    "cosimlex", "candidates", None, run, add_options,
    help="find contexts and pick candidates (Beam)",
    description="Find 3-sentence contexts holding each word of a SimLex pair once "
                "(by lemma) in the sentences of a mined run, score them with each encoder, "
                "keep the extremes. Beam runner flags pass through.",
    writes=verbs.Writes("run", "the CoSimLex run directory to write (local, gs:// or s3://); the later verbs take "
                               "it as --run", metavar="COSIMLEX_RUN"),
    defaults=dict(beam_args=[])))
