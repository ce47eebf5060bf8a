"""`picforge mcphrasy evaluate`: score the clustering baseline, or a predictions file, on a release."""
import json

from companions.mcphrasy.release import DEFAULT_KS, baseline_scores, evaluate_predictions, read_release
from picforge.encoders import BUNDLED_MODEL
from picforge.files import write_atomically


def register(verbs):
    parser = verbs.add_parser("evaluate", help="V-measure, ARI and AMI of a clustering method on a release")
    parser.add_argument("--release", required=True, help="release folder")
    parser.add_argument("--predictions", help="JSON lines {group_id, clusters: [[phrase, ...], ...]} to score; "
                                              "without it, the encoder + agglomerative baseline is scored")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, help=f"baseline encoder (default {BUNDLED_MODEL})")
    parser.add_argument("--out", help="also write the scores as JSON here")
    parser.set_defaults(func=run)


def run(args):
    records = read_release(args.release)
    if args.predictions:
        scores = evaluate_predictions(records, args.predictions)
        print(f"{scores['groups']} groups: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  AMI {scores['ami']:.4f}")
        results = {"predictions": args.predictions, "scores": scores}
    else:
        by_k = baseline_scores(records, args.encoder, DEFAULT_KS)
        for k, scores in by_k.items():
            print(f"k={k}: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  AMI {scores['ami']:.4f}")
        results = {"encoder": args.encoder, "baseline": {str(k): scores for k, scores in by_k.items()}}
    if args.out:
        write_atomically(args.out, json.dumps(dict(results, release=args.release), indent=2, sort_keys=True))
        print(f"scores → {args.out}")
    return 0
