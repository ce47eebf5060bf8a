"""JSON Schemas of every record that crosses a stage or leaves picforge, and their pyarrow forms."""
import functools
import json
from importlib import resources

import jsonschema
import pyarrow as pa

_JSON_TO_ARROW = {
    "string": pa.string(),
    "integer": pa.int64(),
    "number": pa.float64(),
    "boolean": pa.bool_(),
}


@functools.lru_cache(maxsize=None)
def load(name):
    """The JSON Schema `schemas/<name>.schema.json` as a dict."""
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


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
