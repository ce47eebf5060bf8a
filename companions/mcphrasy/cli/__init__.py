"""`picforge mcphrasy VERB`: the McPhraSy companion, one module per verb, each a thin layer over the library."""
from annotation.cli import add_ledger_option
from companions.mcphrasy.workflow import WIKI_CATEGORY_MODES, CorpusSource
from picforge.cli import register_verbs
from picforge.options import add_run_option
from picforge.paths import add_output

VERB_MODULES = ("contexts", "groups", "export_clusters", "ingest_clusters", "agreement", "reconcile", "release",
                "evaluate")


def register(subparsers):
    register_verbs(subparsers, __name__, VERB_MODULES, "mcphrasy",
                   help="McPhraSy: phrase contexts from a corpus, phrase groups, cluster annotation, release",
                   description="McPhraSy companion (multi-context phrase similarity): contexts and A.1 triplets for "
                               "a phrase list, and the phrase-clustering dataset (groups, cluster sheets, agreement, "
                               "release).")


def add_run_and_ledger_options(parser, holding):
    """--run RUN_DIR (holding `holding`; the former --out still works) and --ledger URL (else $PICFORGE_LEDGER), for
    the cluster verbs."""
    add_run_option(parser, holding)
    add_ledger_option(parser)


def add_corpus_arguments(parser):
    """The corpus options shared by `contexts` and `groups`."""
    add_output(parser, "--out", kind="run", shared_with=("--corpus",), required=True, help="run directory (a mined run holds the default corpus)")
    parser.add_argument("--reviews", action="append", default=[],
                        help="Amazon reviews, Ni et al. 2019 JSON lines (.json or .json.gz, glob allowed; repeatable)")
    parser.add_argument("--category", help="category of every review (default: the row's `category`, else the "
                                           "file name, e.g. Office_Products_5.json.gz → Office Products)")
    parser.add_argument("--corpus", help="mined picforge run whose `sentences` stage is the corpus (default: --out)")
    parser.add_argument("--wiki-category", choices=WIKI_CATEGORY_MODES, default="one",
                        help="Wikipedia category: 'one' for the whole corpus (default) or 'page' (first visible category)")
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")


def corpus_source(args):
    return CorpusSource(tuple(args.reviews), args.category, args.corpus, args.wiki_category)
