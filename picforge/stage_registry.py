"""Which command produces which stage: each core area registers the stages it writes, each companion declares its
own (its picforge.datasets.Dataset, carried by its area); the core lists none."""
from picforge import verbs

# {stage: the command that produces it ({run}: the run directory)}, filled by the core areas' packages when imported.
PRODUCED_BY = {}


def register_stages(commands):
    """Record {stage: producing command} for the messages that name how to make a missing or damaged stage."""
    PRODUCED_BY.update(commands)


def producing_command(stage, unknown):
    """The command that produces `stage` (`{run}` left to fill): a core area's, else the companion's that declares
    it (the registry is read only here, on the way to an error message), else `unknown`."""
    if stage in PRODUCED_BY:
        return PRODUCED_BY[stage]
    declared = (dataset.stages[stage] for dataset in verbs.datasets().datasets.values() if stage in dataset.stages)
    return next(declared, unknown)
