"""Which command produces which stage: each core area registers the stages it writes, each companion declares its
own (its picforge.datasets.Dataset, carried by its area); the core lists none."""
from picforge import verbs

# {stage: the command that produces it ({run}: the run directory)}, filled by the core areas' packages when imported.
PRODUCED_BY = {}


def register_stages(commands):
    """Record {stage: producing command} for the messages that name how to make a missing or damaged stage."""
    PRODUCED_BY.update(commands)


def producers():
    """{stage: producing command ({run} left to fill)} of every stage: each dataset's declaration's, then the core
    areas' registered ones over them."""
    declared = {name: command for dataset in verbs.datasets().datasets.values()
                for name, command in dataset.stages.items()}
    return {**declared, **PRODUCED_BY}


def producing_command(stage, unknown):
    """The command that produces `stage` (`{run}` left to fill), else `unknown` (the datasets are read only here and
    in `producers`, on the way to an error message or a `next:` hint)."""
    return producers().get(stage, unknown)
