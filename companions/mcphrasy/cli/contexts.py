"""`picforge mcphrasy contexts`: up to m masked contexts per listed phrase (and A.1 triplets), on Beam."""
from companions.mcphrasy.cli.common import CORPUS_RUN, add_corpus_arguments, corpus_and_run
from companions.mcphrasy.declarations import CONTEXTS, TRIPLETS, Contexts, Triplets
from companions.mcphrasy.triplets import distinct_negatives
from companions.mcphrasy.workflow import retrieve_contexts, write_documents
from picforge.encoders import device_spec
from picforge.options import check_device, pipeline_options
from picforge.stages import add_flags, merged_options
from picforge import verbs

# The options of the two stages this verb writes, one field each.
ContextsVerbOptions = merged_options("ContextsVerbOptions", (Contexts, Triplets))


def add_options(parser):
    """The options of `picforge mcphrasy contexts`."""
    parser.add_argument("--phrases", required=True, help="text file, one phrase per line")
    add_corpus_arguments(parser)
    parser.add_argument("--triplets", action="store_true", help="also write Appendix A.1 anchor/positive/negative")
    add_flags(parser, ContextsVerbOptions)


def run(args):
    if args.triplets:
        check_device(device_spec(args.device, args.precision), pipeline_options(args.beam_args))
    source, run_dir = corpus_and_run(args)
    write_documents(run_dir, source, args.beam_args, args.force)
    manifests, phrases = retrieve_contexts(run_dir, args.phrases, args, args.triplets, args.beam_args, args.force)
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
    writes=CORPUS_RUN,
    next_step=next_step,
    defaults=dict(beam_args=[])))
