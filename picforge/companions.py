"""The companion registry: each companion dataset is one `Companion` declaration, found through the entry-point
group `picforge.companions` of the installed distributions; the core reads its command, stages, schemas, release
step and optional extra from there and names no companion itself."""
import dataclasses
import functools
import importlib

from picforge.errors import InputError

GROUP = "picforge.companions"


class CompanionError(InputError):
    """A companion that cannot be used: its entry point does not load, or its declaration names what is not there."""


@dataclasses.dataclass(frozen=True)
class Companion:
    """One companion: its command word and one-line help for `picforge --help`, its cli package (dotted, imported
    only when the command runs), the stages it writes ({stage: producing command}, `{run}`: the run directory), the
    package whose folder holds its `*.schema.json` files, its release step (`"module:function"`, imported only when
    called) and the pip extra it needs with the top-level modules that extra installs."""

    name: str
    help: str
    cli: str
    stages: dict
    schemas: str
    release: str
    extra: str | None = None
    modules_of_extra: tuple = ()

    def __post_init__(self):
        if self.release.count(":") != 1:
            raise ValueError(f"companion {self.name}: release {self.release!r} is not 'module:function'")
        if bool(self.extra) != bool(self.modules_of_extra):
            raise ValueError(f"companion {self.name}: give extra and modules_of_extra together")

    def schema_folder(self):
        """The folder (an importlib.resources Traversable) of this companion's JSON Schemas."""
        from importlib import resources

        return resources.files(self.schemas)

    def release_step(self):
        """The function its release step names, imported now; a CompanionError when it is not there."""
        module_name, function = self.release.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name and f"{module_name}.".startswith(f"{err.name}."):
                raise CompanionError(f"companion {self.name}: its release step {self.release} names module "
                                     f"{module_name}, which does not exist") from None
            raise
        step = getattr(module, function, None)
        if not callable(step):
            raise CompanionError(f"companion {self.name}: its release step {self.release} names {function}, which "
                                 f"{module_name} does not define")
        return step


@dataclasses.dataclass(frozen=True)
class Registry:
    """The installed companions by command word, the distribution that declares each, and the entry points that
    could not be used ({name: the one line saying why})."""

    companions: dict
    distributions: dict
    broken: dict


def entry_point_line(entry):
    """How an error names an entry point: `NAME = VALUE` in the group, and the distribution declaring it."""
    return f"entry point `{entry.name} = {entry.value}` ({GROUP}, distribution {entry.dist.name} {entry.dist.version})"


def load_declaration(entry, taken):
    """The Companion an entry point names, checked against the command words `taken` ({word: who took it})."""
    try:
        declared = entry.load()
    except Exception as err:  # any error of a plug-in's import is reported, in one line, as that plug-in's
        raise CompanionError(f"{entry_point_line(entry)} does not load: {type(err).__name__}: {err}") from None
    if not isinstance(declared, Companion):
        raise CompanionError(f"{entry_point_line(entry)} names a {type(declared).__name__}, not a "
                             "picforge.companions.Companion")
    if declared.name != entry.name:
        raise CompanionError(f"{entry_point_line(entry)} declares the command {declared.name!r}; name the entry "
                             "point as its command")
    if declared.name in taken:
        raise CompanionError(f"{entry_point_line(entry)}: the command {declared.name!r} is taken by "
                             f"{taken[declared.name]}")
    return declared



@functools.lru_cache(maxsize=None)
def registry():
    """Every companion the installed distributions declare (each import light), in command order."""
    from importlib import metadata  # read only by the commands that need the companions

    taken = {}
    companions, distributions, broken = {}, {}, {}
    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda entry: entry.name):
        try:
            companion = load_declaration(entry, taken)
        except CompanionError as err:
            broken.setdefault(entry.name, str(err))
            continue
        companions[companion.name] = companion
        distributions[companion.name] = entry.dist.name
        taken[companion.name] = entry_point_line(entry)
    return Registry(companions, distributions, broken)


def extra_of_module(module):
    """(distribution, extra) that installs the top-level `module` a registered companion needs, or None."""
    found = registry()
    for name, companion in found.companions.items():
        if module in companion.modules_of_extra:
            return found.distributions[name], companion.extra
    return None
