"""`picforge cosimlex ingest rating`: answers of the rating forms → cosimlex-ratings."""
from companions.cosimlex.declarations import Ratings
from picforge.options import add_run_option, add_sheets_input
from picforge import stages, verbs


def add_options(parser):
    """The options of `picforge cosimlex ingest rating`."""
    add_sheets_input(parser, "answer file(s): the rating forms' answers", metavar="ANSWERS")
    add_run_option(parser, "cosimlex-rating-forms")


def run(args):
    from companions.cosimlex.answers import mark_repeat_pairs, merge_ratings, read_submissions, status_counts, submission_ratings
    from picforge.sheets import read_bytes
    from companions.cosimlex.stage_names import FORMS, RATINGS
    from picforge.rundir import RunDir, input_identity
    run_dir = RunDir(args.run)
    known_items = {item["item_id"] for form in run_dir.require_records(FORMS)
                   for item in form["items"]}
    new = []
    for path in args.sheets:
        for submission in read_submissions(path, read_bytes(path)):
            new += submission_ratings(submission, known_items, path)
    merged, added = merge_ratings(list(run_dir.iter_records(RATINGS)), new)
    ratings = mark_repeat_pairs(merged)
    answers = {"answers": {path: input_identity(path, "ANSWERS") for path in args.sheets}}
    stages.write(run_dir, Ratings, ratings, args, inputs=Ratings.inputs(run_dir, args, answers))
    by_status = ", ".join(f"{status} {n}" for status, n in sorted(status_counts(ratings).items()))
    print(f"{added} new ratings, {len(ratings)} in all ({by_status}) in {run_dir.stage_dir(RATINGS)}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex postprocess", (("--run", args.run),), note="once every form is back")


VERB = verbs.register(verbs.Verb(
    "cosimlex", "ingest", "rating", run, add_options,
    help="read rating answers",
    description="Read answers (standalone JSON downloads, MTurk assignments as JSON/JSONL "
                "from list_assignments_for_hit, or Batch_*_batch_results.csv); "
                "re-ingesting adds nothing; an annotator's later ratings of a pair "
                "they already rated are kept but marked repeat-pair.",
    next_step=next_step))
