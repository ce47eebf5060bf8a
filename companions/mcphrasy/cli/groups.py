"""`picforge mcphrasy groups`: Appendix B.1 phrase groups (seed + 24 nearest) per category."""
from companions.mcphrasy import grouping
from companions.mcphrasy.cli.common import CORPUS_RUN, add_corpus_arguments, corpus_and_run
from companions.mcphrasy.declarations import GROUPS, PHRASES, Groups, Phrases
from companions.mcphrasy.workflow import build_groups, frequent_phrases, write_documents
from picforge.encoders import device_spec
from picforge.options import check_device
from picforge.stages import add_flags, merged_options
from picforge import verbs

# The options of the two stages this verb writes after the documents, one field each.
GroupsVerbOptions = merged_options("GroupsVerbOptions", (Phrases, Groups))


def add_options(parser):
    """The options of `picforge mcphrasy groups`."""
    add_corpus_arguments(parser)
    add_flags(parser, GroupsVerbOptions)


def run(args):
    if not args.vectors:
        check_device(device_spec(args.device, args.precision))
    source, run_dir = corpus_and_run(args)
    write_documents(run_dir, source, args.beam_args, args.force)
    phrases = frequent_phrases(run_dir, args, args.beam_args, args.force)
    groups = build_groups(run_dir, args, force=args.force)
    print(f"{phrases['records']} frequent phrases in {run_dir.stage_dir(PHRASES)}; {groups['records']} groups of the "
          f"target {args.groups} (the paper: {grouping.PAPER_GROUPS}) in {run_dir.stage_dir(GROUPS)}, by "
          f"{groups['report']['vectors']}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("mcphrasy export clusters", (("--run", args.out or args.run), ("--annotators", "A B C"),
                         ("--out", "DIR")))


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "groups", None, run, add_options,
    help="frequent noun phrases and phrase groups (Beam, then phrase vectors)",
    description="Noun phrases of 2-3 words in each document's first 200 characters, top 30 "
                "per product, top 2000 per category, B.1 filters, then groups of a seed and "
                "its 24 nearest phrases by averaged word vectors (--vectors) or the sentence "
                "encoder. Beam flags pass through.",
    writes=CORPUS_RUN,
    next_step=next_step,
    defaults=dict(beam_args=[])))
