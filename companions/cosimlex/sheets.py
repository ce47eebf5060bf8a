"""CoSimLex's two sheet round trips, the hooks of the core's `picforge cosimlex export|ingest selection|rating`:
the expert's survey sheet (§3: pick each pair's two contexts) and the annotators' two-page rating forms (§4)."""
import json
import os

from companions.cosimlex.declarations import Forms, Ratings, Selection
from companions.cosimlex.stage_names import CANDIDATES, FORMS, RATINGS, SELECTION
from picforge import stages
from picforge.errors import InputError
from picforge.rundir import input_identity


def export_selection(job):
    """The expert's survey sheet (CSV + XLSX) of every pair's candidates, and its guidelines, into `job.out`."""
    from picforge.files import write_atomically
    from picforge.sheets import write_sheet
    from companions.cosimlex.survey import GUIDELINES, SHEET_COLUMNS, sheet_rows

    rows = sheet_rows(job.run.require_records(CANDIDATES))
    per_pair = max((r["option"] for r in rows), default=0)
    stem = os.path.join(job.out, f"selection-{job.options.expert}")
    csv_path, xlsx_path = write_sheet(stem, SHEET_COLUMNS, rows, title="selection", bold="context")
    guidelines = os.path.join(job.out, "guidelines.md")
    write_atomically(guidelines, GUIDELINES.format(per_pair=per_pair))
    return [f"{len({r['pair_id'] for r in rows})} pairs, {len(rows)} candidates: {csv_path}, {xlsx_path}, "
            f"{guidelines}"]


def ingest_selection(job):
    """Stage cosimlex-selection from the expert's filled sheets, merged with what was read before."""
    from picforge.sheets import read_sheet
    from companions.cosimlex.survey import SHEET_COLUMNS, merge_selections, read_selection

    candidates = {c["context_id"]: c for c in job.run.require_records(CANDIDATES)}
    new = []
    for sheet in job.sheets:
        new += read_selection(read_sheet(sheet, SHEET_COLUMNS).rows, candidates, sheet, job.options.expert)
    merged = merge_selections(list(job.run.iter_records(SELECTION)), new, job.options.replace)
    sheets = {"sheets": {sheet: input_identity(sheet, "SHEET") for sheet in job.sheets},
              "earlier": sorted({s["sheet"] for s in merged} - set(job.sheets))}
    stages.write(job.run, Selection, merged, job.options, inputs=Selection.inputs(job.run, job.options, sheets))
    pairs = len({c["pair_id"] for c in candidates.values()})
    edited = sum(s[k]["edited"] for s in merged for k in ("context1", "context2"))
    return [f"{len(new)} pairs read; {len(merged)} of {pairs} pairs selected ({edited} contexts shortened) "
            f"in {job.run.stage_dir(SELECTION)}"]


def export_rating(job):
    """Stage cosimlex-rating-forms, and each form as MTurk HTMLQuestion XML and a standalone page, with plan.json
    (and assignments.csv for the named annotators) into `job.out`."""
    from picforge.files import write_atomically
    from picforge.mturk_xml import HTML_QUESTION_LIMIT, html_question_xml
    from picforge.sheets import csv_text
    from companions.cosimlex.rating import annotator_assignments, rating_forms, render_form

    options = job.options
    forms = rating_forms(job.run.require_records(SELECTION), options.pairs_per_form, options.seed)
    existing = sorted(job.run.iter_records(FORMS), key=lambda f: f["form_id"])
    if existing and existing != forms and not options.force:
        raise InputError(f"{job.run.stage_dir(FORMS)}: forms were already exported and would change; answers "
                         "to posted forms stay valid, but pass --force only if none was posted yet")
    manifest = stages.write(job.run, Forms, forms, options, inputs=Forms.inputs(job.run, options))
    lang = (job.run.read_manifest(CANDIDATES) or {}).get("options", {}).get("lang", "en")
    plan = []
    for form in forms:
        form_id = form["form_id"]
        standalone = os.path.join(job.out, "standalone", f"{form_id}.html")
        question = os.path.join(job.out, "mturk", f"{form_id}.question.xml")
        write_atomically(standalone, render_form(form, "standalone", lang))
        try:
            write_atomically(question, html_question_xml(render_form(form, "mturk", lang)))
        except ValueError:
            raise InputError(f"form {form_id} is over MTurk's {HTML_QUESTION_LIMIT}-byte Question limit; "
                             "export again with a smaller --pairs-per-form (and --force)") from None
        plan.append({"form_id": form_id, "exclusive_with": form["exclusive_with"], "items": len(form["items"]),
                     "request_token": f"cosimlex-{manifest['fingerprint'][:16]}-{form_id}",
                     "question_xml": question, "standalone_html": standalone})
    plan_path = os.path.join(job.out, "plan.json")
    write_atomically(plan_path, json.dumps({"forms": plan}, indent=2))
    if options.annotators:
        rows = [dict(a, forms=" ".join(a["forms"])) for a in
                annotator_assignments(forms, [a.strip() for a in options.annotators.split(",") if a.strip()])]
        write_atomically(os.path.join(job.out, "assignments.csv"),
                         csv_text(["annotator", "variant", "forms"], rows, line_end="\n"))
    return [f"{len(forms)} forms ({sum(p['items'] for p in plan)} items): {plan_path}"]


def ingest_rating(job):
    """Stage cosimlex-ratings from the forms' answers, merged with those read before; repeat pairs marked."""
    from companions.cosimlex.answers import (mark_repeat_pairs, merge_ratings, read_submissions, status_counts,
                                             submission_ratings)
    from picforge.sheets import read_bytes

    known_items = {item["item_id"] for form in job.run.require_records(FORMS) for item in form["items"]}
    new = []
    for path in job.sheets:
        for submission in read_submissions(path, read_bytes(path)):
            new += submission_ratings(submission, known_items, path)
    merged, added = merge_ratings(list(job.run.iter_records(RATINGS)), new)
    ratings = mark_repeat_pairs(merged)
    answers = {"answers": {path: input_identity(path, "ANSWERS") for path in job.sheets}}
    stages.write(job.run, Ratings, ratings, job.options, inputs=Ratings.inputs(job.run, job.options, answers))
    by_status = ", ".join(f"{status} {n}" for status, n in sorted(status_counts(ratings).items()))
    return [f"{added} new ratings, {len(ratings)} in all ({by_status}) in {job.run.stage_dir(RATINGS)}"]
