"""Which command produces which stage: each area registers the stages it writes; the core lists none."""

# {stage: the command that produces it ({run}: the run directory)}, filled by the areas' packages when imported.
PRODUCED_BY = {}


def register_stages(commands):
    """Record {stage: producing command} for the messages that name how to make a missing or damaged stage."""
    PRODUCED_BY.update(commands)
