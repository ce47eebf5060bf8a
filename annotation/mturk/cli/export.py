"""`annotate mturk export`: the requester-UI batch CSV and crowd-form template, for uploading by hand."""

from annotation.mturk.cli import options as mturk_options
from annotation.cli.common import open_ledger
from picforge import verbs


def add_options(parser):
    """The options of `picforge annotate mturk export`."""
    mturk_options.add_batch_options(parser, endpoint=False)
    mturk_options.add_plan_options(parser)


def run(args):
    from annotation.mturk import manual as mturk_manual, round1
    from annotation.next_step import run_options
    ledger = open_ledger(args)
    plan, new = round1.plan_batch(ledger, args.batch, round1.MANUAL_BATCH, args.gold,
                                  mturk_options.round1_settings(args), {}, limit=args.limit,
                                  at=run_options(args.run, args.ledger))
    print(round1.judging_line(plan, new))
    if new:
        round1.hit_pages_of(args.run, plan)  # every passage resolves before the plan is kept
        round1.store_plan(ledger, args.batch, plan)
    out = args.out
    csv_path, template_path, test_path, key_path = mturk_manual.export_batch(args.run, args.batch, plan, out)
    print(f"batch {args.batch}: {len(plan['hits'])} HIT row(s), {len(plan['items'])} questions")
    print(f"wrote {csv_path} and {template_path}; in the requester UI set {plan['settings']['assignments']} "
          "assignment(s) per HIT")
    print(f"qualification test: {test_path} with {key_path}; the requester UI cannot create it, so create it "
          f"once (sandbox shown; drop --endpoint-url for live):\n  "
          f"{mturk_manual.create_qualification_command(plan, test_path, key_path)}\n"
          f"then require its id with a score of at least {plan['settings']['qualification_pass']} in the project's "
          "worker requirements (`mturk create` finds and reuses the same test by its name)")
    return 0


VERB = verbs.register(verbs.Verb(
    "annotate", "mturk", "export", run, add_options,
    help="write the requester-UI batch CSV and HTML template",
    writes=verbs.Writes("folder", "folder for the batch CSV and template", default="mturk/{batch}"),
    description="Plan a round-1 batch as for `mturk create` and write BATCH_input.csv (one row per HIT) and "
                "BATCH_template.html (crowd-form, ${question_N} variables) to upload on the requester site."))
