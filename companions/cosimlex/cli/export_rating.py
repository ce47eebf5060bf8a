"""`picforge cosimlex export rating`: the two-page rating forms, for MTurk and as standalone pages."""
import json
import os

from companions.cosimlex.declarations import Forms
from companions.cosimlex.stage_names import EXPORTS
from picforge.errors import InputError
from picforge.options import add_run_option
from picforge.sheets import csv_text
from picforge.stages import add_flags
from picforge import stages, verbs


def add_options(parser):
    """The options of `picforge cosimlex export rating`."""
    add_run_option(parser, "cosimlex-selection")
    add_flags(parser, Forms.Options)
    parser.add_argument("--annotators", help="comma-separated codes of recruited annotators: writes "
                                             "assignments.csv saying which standalone forms each one fills")
    parser.add_argument("--force", action="store_true",
                        help="replace forms already exported with different ones (only before they are posted)")


def _write_text(path, text):
    from picforge.files import write_atomically
    write_atomically(path, text)


def run(args):
    from picforge.mturk_xml import HTML_QUESTION_LIMIT, html_question_xml
    from companions.cosimlex.rating import annotator_assignments, rating_forms, render_form
    from companions.cosimlex.stage_names import CANDIDATES, FORMS, SELECTION
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    forms = rating_forms(run_dir.require_records(SELECTION), args.pairs_per_form, args.seed)
    existing = sorted(run_dir.iter_records(FORMS), key=lambda f: f["form_id"])
    if existing and existing != forms and not args.force:
        raise InputError(f"{run_dir.stage_dir(FORMS)}: forms were already exported and would change; answers "
                         "to posted forms stay valid, but pass --force only if none was posted yet")
    manifest = stages.write(run_dir, Forms, forms, args, inputs=Forms.inputs(run_dir, args))
    lang = (run_dir.read_manifest(CANDIDATES) or {}).get("options", {}).get("lang", "en")
    plan = []
    for form in forms:
        form_id = form["form_id"]
        standalone = os.path.join(args.out, "standalone", f"{form_id}.html")
        question = os.path.join(args.out, "mturk", f"{form_id}.question.xml")
        _write_text(standalone, render_form(form, "standalone", lang))
        try:
            _write_text(question, html_question_xml(render_form(form, "mturk", lang)))
        except ValueError:
            raise InputError(f"form {form_id} is over MTurk's {HTML_QUESTION_LIMIT}-byte Question limit; "
                             "export again with a smaller --pairs-per-form (and --force)") from None
        plan.append({"form_id": form_id, "exclusive_with": form["exclusive_with"], "items": len(form["items"]),
                     "request_token": f"cosimlex-{manifest['fingerprint'][:16]}-{form_id}",
                     "question_xml": question, "standalone_html": standalone})
    plan_path = os.path.join(args.out, "plan.json")
    _write_text(plan_path, json.dumps({"forms": plan}, indent=2))
    if args.annotators:
        rows = [dict(a, forms=" ".join(a["forms"])) for a in
                annotator_assignments(forms, [a.strip() for a in args.annotators.split(",") if a.strip()])]
        _write_text(os.path.join(args.out, "assignments.csv"),
                    csv_text(["annotator", "variant", "forms"], rows, line_end="\n"))
    print(f"{len(forms)} forms ({sum(p['items'] for p in plan)} items): {plan_path}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex ingest rating", (("--run", args.run), ("--sheets", "ANSWERS…")),
                         note="the annotators' returned forms")


VERB = verbs.register(verbs.Verb(
    "cosimlex", "export", "rating", run, add_options,
    help="write the rating forms (MTurk HTMLQuestion + standalone)",
    writes=verbs.Writes("folder", "folder for the forms and plan.json", default=f"{EXPORTS}/rating"),
    description="Split the selected pairs into complementary forms (one context of each "
                "pair per form) and render them as MTurk HTMLQuestion XML and standalone "
                "HTML pages, with plan.json for the MTurk tooling.",
    next_step=next_step))
