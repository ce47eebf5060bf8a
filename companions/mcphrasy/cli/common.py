"""What the McPhraSy verbs share: the run, ledger and corpus options."""
import dataclasses

from companions.mcphrasy.declarations import DocumentsOptions
from picforge.ledger import add_ledger_option
from picforge.errors import InputError
from picforge.options import add_run_option
from picforge.stages import add_flags
from picforge import verbs




# What `contexts` and `groups` write: a McPhraSy run, by default the --run they read (adding to it).
CORPUS_RUN = verbs.Writes("run", "McPhraSy run directory to create (or add to), recording the corpus it reads",
                          default=".", shared_with=("--run",))


def add_run_and_ledger_options(parser, holding):
    """--run RUN_DIR (holding `holding`) and --ledger URL (else $PICFORGE_LEDGER), for the cluster verbs."""
    add_run_option(parser, holding)
    add_ledger_option(parser)


def add_corpus_arguments(parser):
    """The corpus and run options of `contexts` and `groups`, the verbs that start a McPhraSy run: --run (the mined
    run read as the corpus, or a McPhraSy run and the corpus it recorded) and --out (the McPhraSy run written)."""
    add_run_option(parser, "the corpus: a mined picforge run's `sentences` stage, or the corpus a McPhraSy run "
                           "recorded; without --out the stages are added to it", required=False)
    parser.add_argument("--reviews", action="append", default=[],
                        help="Amazon reviews, Ni et al. 2019 JSON lines (.json or .json.gz, glob allowed; repeatable), "
                             "the corpus in place of a mined run")
    add_flags(parser, DocumentsOptions)
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")


def corpus_and_run(args):
    """(CorpusSource, RunDir to write) of `contexts` or `groups`: the corpus is --reviews, else the one the McPhraSy
    run --run recorded, else --run itself (a mined run); the run written is --out, else --run."""
    from companions.mcphrasy.workflow import CorpusSource, recorded_corpus
    from picforge.rundir import RunDir
    if not (args.reviews or args.run) or not (args.out or args.run):
        raise InputError("give --run MINED_RUN (the corpus) and --out NEW_RUN (the McPhraSy run to create), or "
                         "--reviews FILES and --out NEW_RUN")
    if args.reviews:
        source = CorpusSource(tuple(args.reviews), args.category, None, args.wiki_category or "one")
    elif args.run:
        source = recorded_corpus(RunDir(args.run)) or CorpusSource(wiki_run=args.run)
        source = dataclasses.replace(source, category=args.category or source.category,
                                     wiki_category=args.wiki_category or source.wiki_category)
    return source, RunDir(args.out or args.run)
