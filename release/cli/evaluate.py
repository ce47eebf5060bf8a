"""`picforge release evaluate --release RELEASE_DIR`: PS Approach 1 and PR ranking baselines, and EM/F1(+loc) of span
predictions."""
import json
import os

from picforge.files import write_atomically
from picforge.options import add_device_option, add_release_input, positive_int
from picforge.release_writer import SPLITS
from release.configs import CONFIGS, data_file
from picforge.paths import plain_tree
from picforge import verbs

SPAN_CONFIGS = [c for c, spec in CONFIGS.items() if spec.schema == "pr"]
DEFAULT_BASELINES = ("PS", "PR-pass")


def default_baselines(release_dir):
    """The default baselines whose splits the release has (PS: train and test; PR: test), and notes on the rest."""
    chosen, notes = [], []
    for config in DEFAULT_BASELINES:
        missing = [s for s in (("train", "test") if config == "PS" else ("test",))
                   if not os.path.exists(os.path.join(release_dir, data_file(config, s)))]
        if missing:
            notes.append(f"{config}: no {' and no '.join(missing)} split in this release (see its README.md); "
                         "baseline skipped")
        else:
            chosen.append(config)
    return chosen, notes


def add_options(parser):
    """The options of `picforge release evaluate`."""
    add_release_input(parser, "release directory written by `picforge build`")
    parser.add_argument("--baseline", action="append", choices=["PS", *SPAN_CONFIGS],
                        help="baseline to run (repeatable; default PS and PR-pass; none with --predictions only)")
    parser.add_argument("--encoder", metavar="MODEL",
                        help="phrase encoder, a local transformers/sentence-transformers model directory "
                             "(default: the bundled all-MiniLM-L6-v2)")
    parser.add_argument("--max-examples", type=positive_int, help="rank at most this many test examples per PR config")
    parser.add_argument("--predictions", help="JSON Lines of {id, prediction_text, answer_start} to score")
    parser.add_argument("--config", default="PSD", choices=SPAN_CONFIGS, help="config the predictions are for")
    parser.add_argument("--split", default="test", choices=SPLITS, help="split the predictions are for")
    add_device_option(parser, "the phrase encoder")


def run(args):
    from release import evaluate
    from release.configs import read_split
    from release.embed import PhraseEncoder
    plain_tree(args.release)
    if args.baseline or args.predictions:
        baselines = args.baseline or []
    else:
        baselines, notes = default_baselines(args.release)
        for note in notes:
            print(note)
        if not baselines:
            return 0
    encoder = PhraseEncoder(args.encoder, device=args.device)
    results = {}
    if "PS" in baselines:
        results["PS"] = evaluate.ps_baseline(encoder, read_split(args.release, "PS", "train"),
                                             read_split(args.release, "PS", "test"))
    for config in [b for b in baselines if b != "PS"]:
        records = read_split(args.release, config, "test")[:args.max_examples]
        results.setdefault("ranking", {})[config] = evaluate.pr_baseline(encoder, records, config)
    if args.predictions:
        records = read_split(args.release, args.config, args.split)
        results.setdefault("predictions", {})[f"{args.config}/{args.split}"] = evaluate.score_predictions(
            records, evaluate.read_predictions(args.predictions))
    print(evaluate.results_table(encoder.name, results))
    if args.out:
        write_atomically(args.out, json.dumps({"model": encoder.model_path, **results}, indent=2))
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.nothing_left(f"this release is evaluated (`picforge release publish --release {args.release} --to TARGET` "
                              "if it is not published yet)")


VERB = verbs.register(verbs.Verb(
    "release", "evaluate", None, run, add_options,
    description="PS Approach 1 (threshold tuned on train, accuracy on test) and PR ranking (top-1/3/5, "
                "MRR@5) with a phrase encoder, with and without context; EM, F1, EM+loc, F1+loc of a "
                "predictions file. Prints Markdown tables like PiC Tables 3, 5 and 6, every score with its 95 % "
                "bootstrap interval (1,000 resamples of the test items, seed 0), and a warning under a table "
                "whose split has under 30 items.",
    writes=verbs.Writes("file", "also write the results as JSON here", optional=True),
    next_step=next_step))
