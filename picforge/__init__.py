"""picforge's shared core: the run directory, errors, options, resources, encoders and the `picforge` command."""

__version__ = "0.1.0"
