"""The dataset declarations: each companion dataset is one `Dataset` (its command word, stages, schemas, release,
evaluation and sheet hooks, ledger tables, extra), carried by its area (picforge.verbs.Area, found through the
entry-point group `picforge.areas`). The core runs the generic verbs for every declared dataset (`AREA release`,
built here; `AREA evaluate`, picforge.evaluation; the sheet round trip, picforge.sheet_verbs) and names no companion
itself; each hook is a `"module:NAME"` imported only when used (picforge.hooks)."""
import dataclasses

from picforge.evaluation import Evaluate, evaluate_verbs
from picforge.hooks import DatasetError, check_hook, imported
from picforge.sheet_verbs import sheet_verbs


@dataclasses.dataclass(frozen=True)
class Release:
    """How the core's `AREA release` writes a dataset. `write`: `write_release(run, out, *, license_id,
    license_override, force[, options])` returning the release's MANIFEST (through picforge.release_writer);
    `reads`: what `--run` holds; `licence`: the default licence as `--license`'s help states it; `counts`: the noun
    the summary counts ("pairs"); `options`: an options dataclass (picforge.stages.option() fields: its flags, and
    the `options` keyword of `write`); `details`: manifest → one more summary line; `then`: the area's verb that
    reads the release (`--release`), suggested after publishing it."""

    write: str
    reads: str
    licence: str
    counts: str
    help: str
    description: str = ""
    options: str | None = None
    details: str | None = None
    then: str | None = None


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One companion dataset: its command word and one-line help for `picforge --help`, the stages it writes
    ({stage: producing command}, `{run}`: the run directory), the package whose folder holds its `*.schema.json`
    files, its Release, its Evaluate (picforge.evaluation: the core's `AREA evaluate`, when it has one), its Sheets
    (picforge.sheet_verbs: the core's `AREA export|ingest TARGET`), the MetaData of the tables it keeps in the run's
    annotation ledger (`"module:NAME"`, added to the core's when a ledger opens) and the pip extra it needs with the
    top-level modules that extra installs."""

    name: str
    help: str
    stages: dict
    schemas: str
    release: Release
    evaluate: Evaluate | None = None
    sheets: tuple = ()
    ledger_tables: str | None = None
    extra: str | None = None
    modules_of_extra: tuple = ()

    def __post_init__(self):
        for what, spec in (("release hook", self.release.write), ("release options", self.release.options),
                           ("release details", self.release.details), ("ledger tables", self.ledger_tables),
                           *(self.evaluate.hooks() if self.evaluate else ()),
                           *(hook for sheet in self.sheets for hook in sheet.hooks())):
            check_hook(self.name, what, spec)
        if bool(self.extra) != bool(self.modules_of_extra):
            raise ValueError(f"dataset {self.name}: give extra and modules_of_extra together")

    def schema_folder(self):
        """The folder (an importlib.resources Traversable) of this dataset's JSON Schemas."""
        from importlib import resources

        return resources.files(self.schemas)

    def release_hook(self):
        """The release's write function, imported now; a DatasetError when it is not there."""
        write = imported(self.name, "release hook", self.release.write)
        if not callable(write):
            raise DatasetError(f"dataset {self.name}: its release hook {self.release.write} is not a function")
        return write

    def release_options(self):
        """The release's options dataclass, or None."""
        return self.release.options and imported(self.name, "release options", self.release.options)

    def tables(self):
        """The ledger tables this dataset declares (sqlalchemy Tables, on a MetaData of its own)."""
        return tuple(imported(self.name, "ledger tables", self.ledger_tables).tables.values()) \
            if self.ledger_tables else ()

    def verbs(self):
        """The generic verbs the core runs for this dataset: `AREA release`, `AREA evaluate` when it declares an
        Evaluate (picforge.evaluation), and `AREA export|ingest TARGET` for each Sheet (picforge.sheet_verbs)."""
        from picforge.release_writer import RELEASE_OUT
        from picforge.verbs import Verb, Writes

        return (Verb(self.name, "release", None, self.run_release, self.add_release_options, help=self.release.help,
                     description=self.release.description or None, next_step=self.after_release,
                     writes=Writes("release", RELEASE_OUT)),) + evaluate_verbs(self) + sheet_verbs(self)

    def add_release_options(self, parser):
        """--run, --license, --license-override, --force, and the flags of the release's options (its `--out` is the
        Verb's `writes`)."""
        from picforge.release_writer import add_release_options
        from picforge.stages import add_flags

        add_release_options(parser, reads=self.release.reads, default_license=self.release.licence)
        options = self.release_options()
        if options is not None:
            add_flags(parser, options)

    def run_release(self, args):
        """Write the release (the hook does the work) and print its summary."""
        from picforge.options import check_device, options_from_args
        from picforge.release_writer import release_summary

        options_class = self.release_options()
        extra = {}
        if options_class is not None:
            extra["options"] = options_from_args(options_class, args)
            if hasattr(extra["options"], "device_spec"):
                check_device(extra["options"].device_spec())
        manifest = self.release_hook()(args.run, args.out, license_id=args.license,
                                       license_override=args.license_override, force=args.force, **extra)
        summary = release_summary(args.out, manifest, self.release.counts).split("\n")
        if self.release.details:   # beside the sizes, before any warning
            summary.insert(1, imported(self.name, "release details", self.release.details)(manifest))
        print("\n".join(summary))
        return 0

    def after_release(self, args):
        """`release publish` of the written folder, then the dataset's verb that reads a release, if it has one."""
        from picforge.verbs import Command

        then = Command(f"{self.name} {self.release.then}", (("--release", args.out),)) if self.release.then else None
        return Command("release publish", (("--release", args.out), ("--to", "TARGET")), then=then)
