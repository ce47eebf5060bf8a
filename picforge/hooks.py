"""A dataset declaration's hooks: each names a function or class as `"module:NAME"`, imported only when used, so
declaring a dataset stays light (picforge.datasets, picforge.evaluation)."""
import importlib

from picforge.errors import InputError


class DatasetError(InputError):
    """A dataset that cannot be used: a hook its declaration names is not there."""


def check_hook(dataset, what, spec):
    """A ValueError unless `spec` is `"module:NAME"`."""
    if spec is not None and spec.count(":") != 1:
        raise ValueError(f"dataset {dataset}: {what} {spec!r} is not 'module:NAME'")


def imported(dataset, what, spec):
    """What the hook `spec` ("module:NAME") names, imported now; a DatasetError naming it when it is not there."""
    module_name, name = spec.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and f"{module_name}.".startswith(f"{err.name}."):
            raise DatasetError(f"dataset {dataset}: its {what} {spec} names module {module_name}, which does not "
                               "exist") from None
        raise
    if not hasattr(module, name):
        raise DatasetError(f"dataset {dataset}: its {what} {spec} names {name}, which {module_name} does not define")
    return getattr(module, name)
