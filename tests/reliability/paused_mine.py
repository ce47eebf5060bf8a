"""`picforge mine …` that stops at one point of the `select` stage and waits there to be killed.

Usage: python -m tests.reliability.paused_mine POINT MINE_ARGS…; it prints "paused at POINT" when it gets there.
POINT: before-finalise (the Beam job is done), mid-finalise (about to write the ranked Parquet file),
before-manifest (every output written, the manifest not yet).
"""
import sys
import time

from picforge import cli, rundir
from pipeline import mine_stages


def pause(point):
    print(f"paused at {point}", flush=True)
    time.sleep(600)


def stop_before(cls, method, point):
    """Make `cls.method` pause at `point` when called for the select stage."""
    original = getattr(cls, method)

    def paused(self, stage, *args, **kwargs):
        if stage == "select":
            pause(point)
        return original(self, stage, *args, **kwargs)
    setattr(cls, method, paused)


def main(point, argv):
    if point == "before-finalise":
        mine_stages.Select.finalise = lambda self, run: pause(point)
    elif point == "mid-finalise":
        stop_before(rundir.RunDir, "write_file", point)
    elif point == "before-manifest":
        stop_before(rundir.RunDir, "finish_stage", point)
    else:
        raise SystemExit(f"unknown point {point}")
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
