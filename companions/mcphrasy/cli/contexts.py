"""`picforge mcphrasy contexts`: up to m masked contexts per listed phrase (and A.1 triplets), on Beam."""
from companions.mcphrasy.cli.common import add_corpus_arguments, corpus_and_run
from companions.mcphrasy.stages import CONTEXTS, MAX_CONTEXTS, TRIPLETS
from companions.mcphrasy.triplets import distinct_negatives
from companions.mcphrasy.workflow import retrieve_contexts, write_documents
from picforge.encoders import BUNDLED_MODEL
from picforge.options import add_device_option, check_device, non_negative_int, pipeline_options, positive_int
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy contexts`."""
    parser.add_argument("--phrases", required=True, help="text file, one phrase per line")
    add_corpus_arguments(parser)
    parser.add_argument("--max-contexts", type=positive_int, default=MAX_CONTEXTS, help=f"m (default {MAX_CONTEXTS})")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the context sample (default 0)")
    parser.add_argument("--triplets", action="store_true", help="also write Appendix A.1 anchor/positive/negative")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, metavar="MODEL",
                        help=f"sentence encoder of the triplets (default {BUNDLED_MODEL})")
    add_device_option(parser, "the triplets' encoder (with --triplets)")


def run(args):
    if args.triplets:
        check_device(args.device, pipeline_options(args.beam_args))
    source, run_dir = corpus_and_run(args)
    write_documents(run_dir, source, args.beam_args, args.force)
    manifests, phrases = retrieve_contexts(run_dir, args.phrases, args.max_contexts, args.seed,
                                           args.encoder if args.triplets else None, args.beam_args, args.force,
                                           args.device)
    found = manifests[CONTEXTS]["records"]
    print(f"{found} of {len(phrases)} phrases found; "
          f"{manifests[CONTEXTS]['counters'].get(f'{CONTEXTS}/contexts-kept', 0)} contexts in {run_dir.stage_dir(CONTEXTS)}")
    if TRIPLETS in manifests:
        made = list(run_dir.iter_records(TRIPLETS, columns=["negative_phrase", "negative"]))
        print(f"{len(made)} triplets ({distinct_negatives(made)} distinct negatives) in {run_dir.stage_dir(TRIPLETS)}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("mcphrasy groups", (("--run", args.out or args.run),),
                         note="phrase groups for the cluster task")


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "contexts", None, run, add_options,
    help="contexts of each listed phrase (Beam)",
    description="Match a phrase list against every corpus sentence in one pass and keep "
                "up to m seeded-sample contexts per phrase, masked. Beam flags pass through.",
    next_step=next_step,
    defaults=dict(beam_args=[])))
