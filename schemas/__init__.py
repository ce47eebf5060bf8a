"""PiC's JSON Schemas, one `<name>.schema.json` per record that crosses a stage or leaves picforge (data only:
picforge.schemas loads them, and each companion's from its own folder)."""
