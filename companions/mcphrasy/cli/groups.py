"""`picforge mcphrasy groups`: Appendix B.1 phrase groups (seed + 24 nearest) per category."""
from companions.mcphrasy import grouping
from companions.mcphrasy.cli.common import add_corpus_arguments, corpus_and_run
from companions.mcphrasy.stages import PHRASES
from companions.mcphrasy.workflow import GROUPS, VectorOptions, build_groups, frequent_phrases, write_documents
from picforge.encoders import BUNDLED_MODEL
from picforge.options import add_device_option, at_least, check_device, positive_int
from picforge.spacy_models import default_spacy_model
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy groups`."""
    add_corpus_arguments(parser)
    parser.add_argument("--spacy-model", help="spaCy model for Penn tags (default: first installed English sm)")
    parser.add_argument("--per-product", type=positive_int, default=grouping.PER_PRODUCT,
                        help="most frequent phrases kept per product (document), B.1 (default %(default)s)")
    parser.add_argument("--per-category", type=positive_int, default=grouping.PER_CATEGORY,
                        help="most frequent phrases kept per category, B.1 (default %(default)s)")
    parser.add_argument("--groups", type=positive_int, default=grouping.PAPER_GROUPS, metavar="N",
                        help=f"target number of groups over all categories (default {grouping.PAPER_GROUPS}, the "
                             f"paper's {grouping.PAPER_GROUPS} over 5 categories), taken in turn from each category's "
                             "groups in seed order; the report says how many were reached")
    parser.add_argument("--max-groups", type=positive_int, default=25, help="groups per category at most (default 25)")
    parser.add_argument("--group-size", type=at_least(2), default=grouping.GROUP_SIZE,
                        help="phrases per group, the seed included (default %(default)s: a seed and its 24 nearest)")
    parser.add_argument("--vectors", help="word vectors, word2vec or FastText text format (.vec/.txt, may be .gz); a "
                                          "phrase is the mean of its words' vectors, as in the paper (default: the "
                                          "sentence encoder's phrase vectors)")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, metavar="MODEL",
                        help=f"sentence encoder used without --vectors (default {BUNDLED_MODEL})")
    add_device_option(parser, "the sentence encoder (without --vectors)")


def run(args):
    if not args.vectors:
        check_device(args.device)
    source, run_dir = corpus_and_run(args)
    write_documents(run_dir, source, args.beam_args, args.force)
    phrases = frequent_phrases(run_dir, args.spacy_model or default_spacy_model(), args.per_product,
                               args.per_category, args.beam_args, args.force)
    groups = build_groups(run_dir, VectorOptions(args.vectors, args.encoder), args.max_groups, args.group_size,
                          force=args.force, device=args.device, target=args.groups)
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
    next_step=next_step,
    defaults=dict(beam_args=[])))
