"""`picforge mcphrasy evaluate`: score the clustering baseline, or a predictions file, on a release."""
from companions.mcphrasy.release import DEFAULT_KS, baseline_scores, evaluate_predictions, read_release
from picforge.encoders import BUNDLED_MODEL


def register(verbs):
    parser = verbs.add_parser("evaluate", help="V-measure, ARI and AMI of a clustering method on a release")
    parser.add_argument("--release", required=True, help="release folder")
    parser.add_argument("--predictions", help="JSON lines {group_id, clusters: [[phrase, ...], ...]} to score; "
                                              "without it, the encoder + agglomerative baseline is scored")
    parser.add_argument("--encoder", default=BUNDLED_MODEL, help=f"baseline encoder (default {BUNDLED_MODEL})")
    parser.set_defaults(func=run)


def run(args):
    records = read_release(args.release)
    if args.predictions:
        scores = evaluate_predictions(records, args.predictions)
        print(f"{scores['groups']} groups: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  AMI {scores['ami']:.4f}")
        return 0
    for k, scores in baseline_scores(records, args.encoder, DEFAULT_KS).items():
        print(f"k={k}: V {scores['v_measure']:.4f}  ARI {scores['ari']:.4f}  AMI {scores['ami']:.4f}")
    return 0
