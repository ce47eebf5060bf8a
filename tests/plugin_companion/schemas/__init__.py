"""The plug-in companion's JSON Schemas (data only: picforge.schemas loads them)."""
