"""`picforge cosimlex ingest selection`: the expert's filled sheets → cosimlex-selection."""
from companions.cosimlex.declarations import Selection
from picforge.options import add_run_option, add_sheets_input
from picforge.stages import add_flags
from picforge import stages, verbs


def add_options(parser):
    """The options of `picforge cosimlex ingest selection`."""
    add_sheets_input(parser, "filled selection sheet(s)")
    add_run_option(parser, "cosimlex-candidates")
    add_flags(parser, Selection.Options)


def run(args):
    from picforge.sheets import read_sheet
    from companions.cosimlex.stage_names import CANDIDATES, SELECTION
    from companions.cosimlex.survey import SHEET_COLUMNS, merge_selections, read_selection
    from picforge.rundir import RunDir, input_identity
    run_dir = RunDir(args.run)
    candidates = {c["context_id"]: c for c in run_dir.require_records(CANDIDATES)}
    new = []
    for sheet in args.sheets:
        new += read_selection(read_sheet(sheet, SHEET_COLUMNS).rows, candidates, sheet, args.expert)
    merged = merge_selections(list(run_dir.iter_records(SELECTION)), new, args.replace)
    sheets = {"sheets": {sheet: input_identity(sheet, "SHEET") for sheet in args.sheets},
              "earlier": sorted({s["sheet"] for s in merged} - set(args.sheets))}
    stages.write(run_dir, Selection, merged, args, inputs=Selection.inputs(run_dir, args, sheets))
    pairs = len({c["pair_id"] for c in candidates.values()})
    edited = sum(s[k]["edited"] for s in merged for k in ("context1", "context2"))
    print(f"{len(new)} pairs read; {len(merged)} of {pairs} pairs selected ({edited} contexts shortened) "
          f"in {run_dir.stage_dir(SELECTION)}")
    return 0


def next_step(args):
    """The command that comes after this verb (printed as `next:` when it succeeds)."""
    return verbs.Command("cosimlex export rating", (("--run", args.run),))


VERB = verbs.register(verbs.Verb(
    "cosimlex", "ingest", "selection", run, add_options,
    help="read the expert's filled sheets",
    description="Validate the expert's sheets (CSV or XLSX) and record the two chosen "
                "contexts of every pair; re-ingesting a sheet changes nothing.",
    next_step=next_step))
