"""picforge: build phrase-in-context datasets from Wikipedia dumps."""

__version__ = "0.1.0"
