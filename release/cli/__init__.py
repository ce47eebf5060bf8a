"""`picforge release build|publish|evaluate` (`build` keeps its short form `picforge build`): one module per verb,
the work in release."""
from picforge.verbs import Area


def load():
    """Import the verb modules, each registering its verb."""
    from release.cli import build, evaluate, publish  # noqa: F401


AREA = Area("release", "build the PS, PR-pass, PR-page and PSD release from a run directory, publish it to s3://, "
                       "gs:// or hf://org/name (dry run unless --live) and sanity-check it with the PiC baselines",
            "build & publish", load, short_forms=("build",))
