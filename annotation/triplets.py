"""Triplet records of a mining run (stage `select`), read for annotation exports."""
from picforge.errors import InputError
from picforge.rundir import RunDir

SELECT_STAGE = "select"


def require_select(run_dir):
    """The run's RunDir, or a clear error when `picforge mine` has not finished its select stage."""
    run = RunDir(run_dir)
    run.require(SELECT_STAGE)
    return run


def iter_triplets(run_dir):
    """Every Triplet of the run, in the select stage's order (best candidates first)."""
    yield from require_select(run_dir).iter_records(SELECT_STAGE)


def load_triplets(run_dir, triplet_ids):
    """{triplet_id: Triplet} for the given ids; an error names any id the run does not have."""
    wanted = set(triplet_ids)
    found = {t["triplet_id"]: t for t in iter_triplets(run_dir) if t["triplet_id"] in wanted}
    missing = sorted(wanted - found.keys())
    if missing:
        raise InputError(f"{run_dir}: triplet id(s) {', '.join(missing[:10])} are in the ledger but not in "
                         f"stage {SELECT_STAGE}; was the ledger made for another run? pass --run of that run")
    return found
