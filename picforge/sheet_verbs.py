"""The core's sheet round trip, built from a dataset's `Sheet` declarations (picforge.datasets.Dataset.sheets):
`AREA export TARGET` writes the sheets or forms people fill, `AREA ingest TARGET` reads them back. The flags,
`--out`, `--sheets`, `--ledger` and the `next:` hints come from the declaration; the dataset's hooks do the work."""
import dataclasses
import functools

from picforge.verbs import Writes


@dataclasses.dataclass(frozen=True)
class Sheet:
    """One round trip. `export`/`ingest`: hooks `"module:NAME"` taking a SheetJob and returning the lines printed;
    `writes`: what the export creates (a Writes); `reads`/`ingest_reads`: what `--run` holds for each;
    `export_options`/`ingest_options`: options dataclasses (picforge.stages.option() fields: their flags);
    `returned`: what `--sheets` holds and `placeholder` its value in the export's hint (`filled`: the hint's note);
    `ledger`: both verbs open the run's ledger (`--ledger`); `then`: the verbs after the ingest, in order, where the
    stage graph does not say it (none: the derived hint, picforge.hints), `then_note` the first one's note."""

    target: str
    export: str
    ingest: str
    writes: Writes
    reads: str
    returned: str
    export_help: str
    ingest_help: str
    export_description: str = ""
    ingest_description: str = ""
    ingest_reads: str | None = None
    export_options: str | None = None
    ingest_options: str | None = None
    placeholder: str = "SHEET…"
    filled: str = ""
    returned_metavar: str = "SHEET"
    ledger: bool = False
    then: tuple = ()
    then_note: str = ""

    def hooks(self):
        """(what, "module:NAME") of each hook it names, for the dataset to check."""
        return ((f"{self.target} export hook", self.export), (f"{self.target} ingest hook", self.ingest),
                (f"{self.target} export options", self.export_options),
                (f"{self.target} ingest options", self.ingest_options))


@dataclasses.dataclass(frozen=True)
class SheetJob:
    """What a sheet hook gets: the run (a RunDir), the declared options, where the export writes (`out`, None for a
    stage of the run), the returned sheets an ingest reads, and the ledger's URL (None: the run's own)."""

    run: object
    options: object = None
    out: str | None = None
    sheets: tuple = ()
    ledger: str | None = None


def sheet_verbs(dataset):
    """The Verbs `AREA export TARGET` and `AREA ingest TARGET` of every Sheet `dataset` declares."""
    from picforge.verbs import Verb

    built = []
    for sheet in dataset.sheets:
        built.append(Verb(dataset.name, "export", sheet.target, functools.partial(run_sheet, dataset, sheet, "export"),
                          functools.partial(add_sheet_options, dataset, sheet, "export"), help=sheet.export_help,
                          description=sheet.export_description or None, writes=sheet.writes,
                          next_step=functools.partial(after_export, dataset, sheet)))
        built.append(Verb(dataset.name, "ingest", sheet.target, functools.partial(run_sheet, dataset, sheet, "ingest"),
                          functools.partial(add_sheet_options, dataset, sheet, "ingest"), help=sheet.ingest_help,
                          description=sheet.ingest_description or None,
                          next_step=functools.partial(after_ingest, dataset, sheet) if sheet.then else None))
    return tuple(built)


def options_class(dataset, sheet, side):
    """The options dataclass `sheet` declares for `side` ("export" or "ingest"), imported now, or None."""
    from picforge.hooks import imported

    spec = getattr(sheet, f"{side}_options")
    return spec and imported(dataset.name, f"{sheet.target} {side} options", spec)


def add_sheet_options(dataset, sheet, side, parser):
    """--run, the ingest's --sheets, --ledger where the sheet keeps a ledger, and the declared options' flags."""
    from picforge.ledger import add_ledger_option
    from picforge.options import add_run_option, add_sheets_input
    from picforge.stages import add_flags

    add_run_option(parser, sheet.reads if side == "export" else sheet.ingest_reads or sheet.reads)
    if side == "ingest":
        add_sheets_input(parser, sheet.returned, metavar=sheet.returned_metavar)
    if sheet.ledger:
        add_ledger_option(parser)
    options = options_class(dataset, sheet, side)
    if options is not None:
        add_flags(parser, options)


def run_sheet(dataset, sheet, side, args):
    """Run the `side` hook of `sheet` on the parsed `args` and print what it returns."""
    from picforge.hooks import imported
    from picforge.ledger import ledger_url
    from picforge.options import options_from_args
    from picforge.rundir import RunDir

    options = options_class(dataset, sheet, side)
    job = SheetJob(RunDir(args.run), options_from_args(options, args) if options else None,
                   out=getattr(args, "out", None), sheets=tuple(getattr(args, "sheets", None) or ()),
                   ledger=ledger_url(args) if sheet.ledger else None)
    print("\n".join(imported(dataset.name, f"{sheet.target} {side} hook", getattr(sheet, side))(job)))
    return 0


def after_export(dataset, sheet, args):
    """The ingest of the same sheet, with the run and a placeholder for the returned sheets."""
    from picforge.verbs import Command

    return Command(f"{dataset.name} ingest {sheet.target}", (("--run", args.run), ("--sheets", sheet.placeholder)),
                   note=sheet.filled)


def after_ingest(dataset, sheet, args):
    """The declared verbs after the ingest, chained in order, each with the run and a placeholder for each other
    option it requires (picforge.hints)."""
    from picforge.hints import required_placeholders
    from picforge.verbs import Command, find

    after = None
    for words in reversed(sheet.then):
        placeholders = required_placeholders(find((dataset.name, *words.split())))
        after = Command(f"{dataset.name} {words}", (("--run", args.run), *placeholders),
                        note=sheet.then_note if words == sheet.then[0] else "", then=after)
    return after
