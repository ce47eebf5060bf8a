"""The companion registry: each companion dataset is one `Companion` declaration, carried by its area's declaration
(picforge.verbs.Area, found through the entry-point group `picforge.areas`); the core reads its stages, schemas,
release step and optional extra from there and names no companion itself."""
import dataclasses
import importlib

from picforge.errors import InputError


class CompanionError(InputError):
    """A companion that cannot be used: its entry point does not load, or its declaration names what is not there."""


@dataclasses.dataclass(frozen=True)
class Companion:
    """One companion: its command word and one-line help for `picforge --help`, the stages it writes ({stage:
    producing command}, `{run}`: the run directory), the package whose folder holds its `*.schema.json` files, its
    release step (`"module:function"`, imported only when called) and the pip extra it needs with the top-level
    modules that extra installs."""

    name: str
    help: str
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
    """The installed companions by command word and the distribution that declares each."""

    companions: dict
    distributions: dict


def registry():
    """Every companion an installed area carries (picforge.verbs.areas), in command order."""
    from picforge import verbs

    found = verbs.areas()
    carried = {name: area.companion for name, area in sorted(found.areas.items()) if area.companion is not None}
    return Registry(carried, {name: found.distributions[name] for name in carried})


def extra_of_module(module):
    """(distribution, extra) that installs the top-level `module` a registered companion needs, or None."""
    found = registry()
    for name, companion in found.companions.items():
        if module in companion.modules_of_extra:
            return found.distributions[name], companion.extra
    return None
