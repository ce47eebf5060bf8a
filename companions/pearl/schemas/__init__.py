"""This companion's JSON Schemas, one `<name>.schema.json` per record (data only: picforge.schemas loads them)."""
