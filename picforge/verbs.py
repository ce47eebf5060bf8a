"""One registry of every verb. A verb is one `Verb` declaration (`picforge AREA NAME [TARGET]`, its options, what it
runs and the command after it); an area is one `Area` declaration (its command word, help, and the import of its verb
modules), found through the entry-point group `picforge.areas` of the installed distributions, core areas and
companions alike, so the core names no area."""
import argparse
import dataclasses
import functools
import os
import re
from typing import Callable

from picforge import paths
from picforge.errors import InputError

GROUP = "picforge.areas"
CORE_DISTRIBUTION = "picforge"
# options a next step repeats when the user gave them and the next verb takes them (a ledger other than the run's)
CARRIED = ("--ledger",)
# The groups of the sheet round trip (`AREA export TARGET`, `AREA ingest TARGET`), for the areas that have one.
SHEET_GROUPS = {"export": "write the sheets or forms people fill", "ingest": "read the filled sheets or answers back"}
# One meaning per option name on every verb, shown by its metavar: an existing run, an existing release, a
# sentence-transformers model (name or folder), a bank of gold questions, a ledger's SQLAlchemy URL.
MEANINGS = {"--run": "RUN_DIR", "--release": "RELEASE_DIR", "--encoder": "MODEL", "--gold": "GOLD.jsonl",
            "--ledger": "URL"}

# What `--out` shows for each kind a verb writes, unless its Writes names it otherwise.
METAVARS = {"file": "FILE", "folder": "DIR", "run": "RUN_DIR", "release": "RELEASE_DIR"}


class AreaError(InputError):
    """An area that cannot be used: its entry point does not load, names no Area, or takes another's command."""


@dataclasses.dataclass(frozen=True)
class Area:
    """One command word of `picforge`: its one-line help and section in `picforge --help`, `load` (imports the area's
    verb modules, each registering its verbs), the groups of its verbs ({name: help}: `annotate export TARGET`), the
    verbs also reached by their short form (`picforge mine`), what runs after any of its verbs succeeds
    (`epilogue(args)`: annotate's ledger hints) and a companion's dataset declaration (picforge.datasets.Dataset,
    whose generic verbs the core adds to the area's own)."""

    name: str
    help: str
    section: str
    load: Callable[[], None]
    description: str = ""
    groups: dict = dataclasses.field(default_factory=dict)
    short_forms: tuple = ()
    epilogue: Callable | None = None
    dataset: object = None


@dataclasses.dataclass(frozen=True)
class Command:
    """A command to run next: its verb's words, its options ((flag, value)…), a note in brackets and the command
    after it; no words: nothing is left to run, the note says why."""

    words: str
    options: tuple = ()
    note: str = ""
    then: "Command | None" = None

    def carrying(self, args):
        """This command (and the ones after it) with each CARRIED option `args` gave that its verb takes."""
        taken = option_strings(tuple(self.words.split())) if self.words else set()
        given = tuple((flag, getattr(args, flag.lstrip("-").replace("-", "_"), None)) for flag in CARRIED)
        extra = tuple((flag, value) for flag, value in given if value and flag in taken
                      and flag not in dict(self.options))
        then = self.then.carrying(args) if self.then else None
        return dataclasses.replace(self, options=self.options + extra, then=then)

    def __str__(self):
        if not self.words:
            return self.note
        line = " ".join(["picforge", self.words, *(f"{flag} {value}" if value is not None else flag
                                                   for flag, value in self.options)])
        line += f"   ({self.note})" if self.note else ""
        return f"{line}; then {self.then}" if self.then else line


def nothing_left(why):
    """The next step of a verb that ends its area's work: no command, only `why`."""
    return Command("", note=f"nothing left: {why}")


@dataclasses.dataclass(frozen=True)
class Writes:
    """What a verb creates, declared once: a `file` or `folder` named by its `--out`, a `run` or `release` it
    creates (or adds to) at `--out`, or a `stage` of its `--run` (no `--out`: what a later verb reads from the run).
    `default` is the run's own place for it (a path under RUN_DIR; `{dest}` fields are filled from the command line,
    as in `mturk/{batch}`; `.`: the run `--run` names), used when `--out` is not given; `optional`: without `--out`
    the verb writes none of it; neither: `--out` is required. `--out` may lie in the run only under `default`'s
    fixed head (or `within`); `shared_with`: the options that may name the same run (one the verb reads and adds
    to); the core checks it with every other output."""

    kind: str
    help: str = ""
    default: str | None = None
    optional: bool = False
    within: str | None = None
    metavar: str | None = None
    shared_with: tuple = ()

    def __post_init__(self):
        if self.kind not in ("file", "folder", "run", "release", "stage") or self.kind == "stage" and not self.default:
            raise ValueError(f"Writes({self.kind!r}): a file, a folder, a run, a release, or a stage with its default "
                             "place")

    @property
    def owns(self):
        """The sub-folder of the run this output may be written under (none: it lies outside the run)."""
        if self.within:
            return (self.within,)
        if self.kind in ("run", "release"):  # a run or release of its own, not a place inside another
            return ()
        parts = (self.default or "").split("/")
        fixed = parts[:next((i for i, part in enumerate(parts) if "{" in part), len(parts))]
        if len(fixed) == len(parts) and self.kind == "file":
            fixed = fixed[:-1]  # the file's own folder
        return ("/".join(fixed),) if any(fixed) else ()

    @property
    def shown_default(self):
        """The default as help and docs show it: `RUN_DIR/mturk/BATCH` (None when there is none)."""
        if self.default == ".":
            return "--run"
        return "RUN_DIR/" + re.sub(r"\{(\w+)\}", lambda found: found[1].upper(), self.default) if self.default else None

    def add_option(self, parser):
        """Add `--out` to `parser` as this declaration says (none for a stage)."""
        if self.kind == "stage":
            return None
        default = f" (default {self.shown_default})" if self.default else ""
        action = paths.add_output(parser, "--out", kind=self.kind, owns=self.owns, shared_with=self.shared_with,
                                  required=not (self.default or self.optional),
                                  metavar=self.metavar or METAVARS[self.kind], help=f"{self.help}{default}")
        action.picforge_writes = self
        return action

    def place(self, args):
        """Where this output goes for the parsed `args`: --out, else the run's own place, else None."""
        given = getattr(args, "out", None) if self.kind != "stage" else None
        if given or not self.default or not isinstance(getattr(args, "run", None), str):
            return given
        if self.default == ".":
            return args.run
        sub = self.default.format(**vars(args))
        return f"{args.run.rstrip('/')}/{sub}" if "://" in args.run else os.path.join(args.run, sub)


def declared_outputs(verb, args):
    """Fill `args.out` with the run's own place when the verb declares one and --out was not given; returns the
    outputs the parser cannot show the output guard ([(option, place, paths.Output)]: a stage of --run)."""
    if verb.writes is None:
        return []
    place = verb.writes.place(args)
    if verb.writes.kind != "stage":
        args.out = place
        return []
    return [("--run", place, paths.Output("folder", (verb.writes.default,)))]


@dataclasses.dataclass(frozen=True)
class Verb:
    """One verb, `picforge AREA NAME [TARGET]`: its help, `options(parser)` adding its flags, `run(args)` returning
    the exit code, `next_step(args)` the Command that comes after it (printed as `next:`), what it creates
    (`writes`, a Writes: its `--out` or the run's own folder) and parser defaults (`read_only=True`: it creates
    nothing; `beam_args=[]`: Beam's flags pass through)."""

    area: str
    name: str
    target: str | None
    run: Callable
    options: Callable
    help: str = ""
    description: str | None = None
    next_step: Callable | None = None
    defaults: dict = dataclasses.field(default_factory=dict)
    writes: Writes | None = None

    @property
    def words(self):
        return tuple(word for word in (self.area, self.name, self.target) if word)

    def add_arguments(self, parser):
        """Every option of this verb on `parser`: its own, then the `--out` its `writes` declares."""
        self.options(parser)
        if self.writes is not None:
            self.writes.add_option(parser)


REGISTRY = {}  # {(area, name, target): Verb}


def register(verb):
    """Add `verb` to the registry (each once) and return it."""
    if verb.words in REGISTRY and REGISTRY[verb.words] is not verb:
        raise ValueError(f"picforge {' '.join(verb.words)}: declared twice")
    REGISTRY[verb.words] = verb
    return verb


@dataclasses.dataclass(frozen=True)
class Areas:
    """The installed areas by command word, the distribution declaring each, the short forms ({word: verb words})
    and the entry points that could not be used ({name: the one line saying why})."""

    areas: dict
    distributions: dict
    short_forms: dict
    broken: dict


def entry_point_line(entry):
    """How an error names an entry point: `NAME = VALUE` in the group, and the distribution declaring it."""
    return f"entry point `{entry.name} = {entry.value}` ({GROUP}, distribution {entry.dist.name} {entry.dist.version})"


def load_area(entry, taken):
    """The Area an entry point names, checked against the command words `taken` ({word: who took it})."""
    try:
        declared = entry.load()
    except Exception as err:  # any error of a plug-in's import is reported, in one line, as that plug-in's
        raise AreaError(f"{entry_point_line(entry)} does not load: {type(err).__name__}: {err}") from None
    if not isinstance(declared, Area):
        raise AreaError(f"{entry_point_line(entry)} names a {type(declared).__name__}, not a picforge.verbs.Area")
    if declared.name != entry.name:
        raise AreaError(f"{entry_point_line(entry)} declares the command {declared.name!r}; name the entry point as "
                        "its command")
    for word in (declared.name, *declared.short_forms):
        if word in taken:
            raise AreaError(f"{entry_point_line(entry)}: the command {word!r} is taken by {taken[word]}")
    return declared


@functools.lru_cache(maxsize=None)
def areas():
    """Every area the installed distributions declare (each declaration light), picforge's own first, then by name."""
    from importlib import metadata  # read only by the commands that need the areas

    entries = sorted(metadata.entry_points(group=GROUP),
                     key=lambda entry: (entry.dist.name != CORE_DISTRIBUTION, entry.name))
    found, distributions, short_forms, broken, taken = {}, {}, {}, {}, {}
    for entry in entries:
        try:
            area = load_area(entry, taken)
        except AreaError as err:
            broken.setdefault(entry.name, str(err))
            continue
        found[area.name], distributions[area.name] = area, entry.dist.name
        for word in (area.name, *area.short_forms):
            taken[word] = entry_point_line(entry)
        short_forms.update({word: (area.name, word) for word in area.short_forms})
    return Areas(found, distributions, short_forms, broken)


@dataclasses.dataclass(frozen=True)
class Datasets:
    """The installed datasets by command word and the distribution that declares each."""

    datasets: dict
    distributions: dict


def datasets():
    """Every dataset an installed area carries (picforge.datasets.Dataset), in command order."""
    found = areas()
    carried = {name: area.dataset for name, area in sorted(found.areas.items()) if area.dataset is not None}
    return Datasets(carried, {name: found.distributions[name] for name in carried})


def extra_of_module(module):
    """(distribution, extra) that installs the top-level `module` an installed dataset needs, or None."""
    found = datasets()
    for name, dataset in found.datasets.items():
        if module in dataset.modules_of_extra:
            return found.distributions[name], dataset.extra
    return None


@functools.lru_cache(maxsize=None)
def verbs_of(area_name):
    """{(name, target): Verb} of the area `area_name`: its verb modules imported now, and the generic verbs the core
    runs for its dataset."""
    area = areas().areas[area_name]
    area.load()
    for verb in area.dataset.verbs() if area.dataset is not None else ():
        register(verb)
    return {(verb.name, verb.target): verb for verb in REGISTRY.values() if verb.area == area_name}


def canonical_words(verb):
    """The words that name `verb` everywhere (hints, run markers, messages): its short form when it has one."""
    return (verb.name,) if verb.name in areas().areas[verb.area].short_forms and not verb.target else verb.words


def every_verb():
    """Every verb of every installed area, each area's verb modules imported now."""
    return [verb for name in areas().areas for verb in verbs_of(name).values()]


def find(words):
    """The Verb `words` name (`("annotate", "export", "expert")`, or a short form such as `("mine",)`), else None."""
    found = areas()
    words = (*found.short_forms.get(words[0], (words[0],)), *words[1:]) if words else words
    if not words or words[0] not in found.areas:
        return None
    return verbs_of(words[0]).get((*words[1:], None, None)[:2]) if len(words) <= 3 else None


@functools.lru_cache(maxsize=None)
def option_strings(words):
    """Every option string of the verb `words` names (an empty set when no verb is)."""
    verb = find(tuple(words))
    if verb is None:
        return frozenset()
    parser = argparse.ArgumentParser(add_help=False)
    verb.add_arguments(parser)
    return frozenset(name for action in parser._actions for name in action.option_strings)


def grammar_faults(verb, parser):
    """What in `verb`'s parser breaks the one grammar: a positional argument (`AREA VERB [TARGET]`, then options
    only), an option of MEANINGS shown with another meaning, an `--out` that is not the Verb's `writes` (what it
    creates, declared once), an export that does not declare what it writes."""
    faults = []
    for action in parser._actions:
        if not action.option_strings:
            faults.append(f"a positional {action.metavar or action.dest}: make it a named option")
        for name in action.option_strings:
            if name in MEANINGS and action.metavar != MEANINGS[name]:
                faults.append(f"{name} {action.metavar}: {name} is {MEANINGS[name]} on every verb (name this one "
                              "otherwise)")
            if name == "--out" and (verb.writes is None or getattr(action, "picforge_writes", None) is not verb.writes):
                faults.append("--out names what the verb creates: declare it once, as the Verb's "
                              "writes=verbs.Writes(…)")
    if "export" in (verb.name, verb.target) and verb.writes is None:
        faults.append("an export declares what it writes: Verb(writes=verbs.Writes(…))")
    return [f"picforge {' '.join(verb.words)}: {fault}" for fault in faults]


def add_verb(parsers, verb, word):
    """Add `verb`'s parser as `word` to the argparse sub-parsers `parsers`; a verb breaking the grammar is refused."""
    parser = parsers.add_parser(word, help=verb.help, description=verb.description or verb.help or None)
    verb.add_arguments(parser)
    faults = grammar_faults(verb, parser)
    if faults:
        raise ValueError("; ".join(faults))
    parser.set_defaults(declared=verb, **verb.defaults)
    return parser


def add_area(parsers, area):
    """Add `picforge AREA` and every verb of `area` (grouped under `AREA GROUP TARGET` where it declares groups)."""
    parser = parsers.add_parser(area.name, help=area.help, description=area.description or area.help)
    words = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    groups = {**area.groups, **(SHEET_GROUPS if area.dataset is not None and area.dataset.sheets else {})}
    grouped = {name: words.add_parser(name, help=text, description=text).add_subparsers(
        dest="target", required=True, metavar="TARGET") for name, text in groups.items()}
    for (name, target), verb in sorted(verbs_of(area.name).items(), key=lambda item: (item[0][0], item[0][1] or "")):
        add_verb(grouped[name], verb, target) if target else add_verb(words, verb, name)
    return parser
