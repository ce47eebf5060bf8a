"""`picforge cosimlex export selection`: the expert survey sheet (CSV + XLSX) and its guidelines."""
import os

from companions.cosimlex.declarations import ExpertOptions
from companions.cosimlex.stage_names import EXPORTS
from picforge.options import add_run_option
from picforge.stages import add_flags
from picforge import verbs


def add_options(parser):
    """The options of `picforge cosimlex export selection`."""
    add_run_option(parser, "cosimlex-candidates")
    add_flags(parser, ExpertOptions)


def run(args):
    from picforge.files import write_atomically
    from picforge.sheets import write_sheet
    from companions.cosimlex.stage_names import CANDIDATES
    from companions.cosimlex.survey import GUIDELINES, SHEET_COLUMNS, sheet_rows
    from picforge.rundir import RunDir
    run_dir = RunDir(args.run)
    candidates = run_dir.require_records(CANDIDATES)
    rows = sheet_rows(candidates)
    per_pair = max((r["option"] for r in rows), default=0)
    stem = os.path.join(args.out, f"selection-{args.expert}")
    csv_path, xlsx_path = write_sheet(stem, SHEET_COLUMNS, rows, title="selection", bold="context")
    guidelines = os.path.join(args.out, "guidelines.md")
    write_atomically(guidelines, GUIDELINES.format(per_pair=per_pair))
    print(f"{len({r['pair_id'] for r in rows})} pairs, {len(rows)} candidates: {csv_path}, {xlsx_path}, {guidelines}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex ingest selection", (("--run", args.run), ("--sheets", "SHEET")),
                         note="the expert's filled selection sheet")


VERB = verbs.register(verbs.Verb(
    "cosimlex", "export", "selection", run, add_options,
    help="write the expert survey sheet",
    writes=verbs.Writes("folder", "folder for the sheet and its guidelines", default=f"{EXPORTS}/selection"),
    description="Write the expert's survey: every pair's candidates, to mark the most "
                "and least similar context and the expected difference.",
    next_step=next_step))
