"""JSON Schemas of every record that crosses a stage or leaves picforge, and their pyarrow forms: PiC's from the
`schemas` folder, each companion's from the folder its dataset declaration names (picforge.datasets, carried by its
area)."""
import functools
import json
from importlib import resources

import jsonschema
import pyarrow as pa

from picforge import verbs
from picforge.errors import InputError

PIC_SCHEMAS = "schemas"

_JSON_TO_ARROW = {
    "string": pa.string(),
    "integer": pa.int64(),
    "number": pa.float64(),
    "boolean": pa.bool_(),
}


@functools.lru_cache(maxsize=None)
def companion_schema_files():
    """{name: [(whose folder, file)]} of every `<name>.schema.json` of the installed datasets."""
    found = {}
    for name, dataset in verbs.datasets().datasets.items():
        for path in sorted(dataset.schema_folder().iterdir(), key=lambda path: path.name):
            if path.name.endswith(".schema.json"):
                found.setdefault(path.name.removesuffix(".schema.json"), []).append(
                    (f"companion {name} ({dataset.schemas})", path))
    return found


@functools.lru_cache(maxsize=None)
def load(name):
    """The JSON Schema named `name` as a dict: PiC's, else the one companion's that defines it (the registry is read
    only for a name PiC does not define)."""
    own = resources.files(PIC_SCHEMAS).joinpath(f"{name}.schema.json")
    defined = [(PIC_SCHEMAS, own)] if own.is_file() else companion_schema_files().get(name, [])
    if not defined:
        raise InputError(f"no JSON Schema {name!r}: neither schemas/ nor an installed companion's schemas folder "
                         f"has {name}.schema.json")
    if len(defined) > 1:
        raise InputError(f"JSON Schema {name!r} is defined by {' and by '.join(who for who, _ in defined)}; "
                         "rename one")
    return json.loads(defined[0][1].read_text(encoding="utf-8"))


def _arrow_type(prop):
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "array":
        return pa.list_(_arrow_type(prop["items"]))
    if kind == "object":
        return pa.struct([pa.field(k, _arrow_type(v)) for k, v in prop["properties"].items()])
    return _JSON_TO_ARROW[kind]


@functools.lru_cache(maxsize=None)
def arrow_schema(name):
    """The pyarrow schema generated from a record's JSON Schema (field order as declared)."""
    props = load(name)["properties"]
    return pa.schema([pa.field(k, _arrow_type(v)) for k, v in props.items()])


@functools.lru_cache(maxsize=None)
def validator(name):
    """A jsonschema validator for the record type `name`."""
    schema = load(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(name, record):
    """Human-readable validation errors of `record` against schema `name` (empty when valid)."""
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '<record>'}: {err.message}"
        for err in validator(name).iter_errors(record)
    ]
