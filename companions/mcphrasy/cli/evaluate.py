"""`picforge mcphrasy evaluate`: the §5.3.1 baselines side by side, or a predictions file, scored on a release."""
import json

from companions.mcphrasy.baselines import METRICS
from companions.mcphrasy.release import DEFAULT_KS, compare_baselines, read_release, score_predictions
from companions.mcphrasy.stages import MAX_CONTEXTS
from picforge.encoders import BUNDLED_MODEL
from picforge.files import write_atomically
from picforge.options import (add_device_option, add_run_option, check_device, existing_release, non_negative_int,
                              positive_int)
from picforge import verbs


def add_options(parser):
    """The options of `picforge mcphrasy evaluate`."""
    parser.add_argument("--release", required=True, metavar="RELEASE_DIR", type=existing_release,
                        help="release folder `picforge mcphrasy release` wrote")
    parser.add_argument("--predictions", help="JSON lines {group_id, clusters: [[phrase, ...], ...]} to score; "
                                              "without it, the §5.3.1 baselines are scored side by side")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, metavar="MODEL",
                        help=f"baseline sentence encoder (default {BUNDLED_MODEL})")
    parser.add_argument("--vectors", help="word vectors (word2vec / FastText text) for the averaged-word-vector "
                                          "baseline (default: the encoder's static word-piece embeddings)")
    add_run_option(parser, "the released phrases' contexts (mcphrasy-contexts): adds the contextual baselines",
                   required=False)
    parser.add_argument("--max-contexts", type=positive_int, default=MAX_CONTEXTS,
                        help=f"m, contexts per phrase for the contextual baselines (default {MAX_CONTEXTS})")
    parser.add_argument("--rounds", type=positive_int, default=10_000, help="permutation-test rounds (default 10000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="permutation-test seed (default 0)")
    add_device_option(parser, "the baseline encoders")


def score_table(compared):
    """Lines of a plain table: per k, each method's V / ARI / AMI, * where the best beats the next best (p < 0.05)."""
    lines = []
    for k, by_metric in compared["best"].items():
        lines.append(f"k={k}")
        for method, by_k in compared["scores"].items():
            cells = [f"{by_k[k][m]:.4f}{'*' if by_metric.get(m, {}).get('best') == method and by_metric[m]['significant'] else ' '}"
                     for m in METRICS]
            lines.append(f"  {method:<16} V {cells[0]}  ARI {cells[1]}  AMI {cells[2]}")
    return lines


def run(args):
    if not args.predictions:
        check_device(args.device)
    records = read_release(args.release)
    if args.predictions:
        scores = score_predictions(records, args.predictions)
        print(f"{scores['groups']} groups: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  AMI {scores['ami']:.4f}")
        results = {"predictions": args.predictions, "scores": scores}
    else:
        results = compare_baselines(records, args.encoder, args.vectors, args.run, args.max_contexts, DEFAULT_KS,
                                    args.rounds, args.seed, args.device)
        print(f"{results['groups']} groups; * = better than the next best, {results['test']}")
        print("\n".join(score_table(results)))
    if args.out:
        write_atomically(args.out, json.dumps(dict(results, release=args.release), indent=2, sort_keys=True))
        print(f"scores → {args.out}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.nothing_left("the scores above are the evaluation")


VERB = verbs.register(verbs.Verb(
    "mcphrasy", "evaluate", None, run, add_options,
    help="V-measure, ARI and AMI of clustering methods on a release",
    writes=verbs.Writes("file", "also write the scores as JSON here", optional=True),
    next_step=next_step))
