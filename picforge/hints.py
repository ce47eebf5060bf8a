"""The `next:` hint derived from the stage declarations: after a verb comes the verb producing the first declared
stage that reads one of its stages (the export first when that stage comes back from a sheet round trip), and
after the last stage of a dataset its `release`; a verb whose next step the stage graph cannot see declares its own
(`Verb.next_step`)."""
from picforge import stages, verbs
from picforge.stage_registry import producers

# What a hint shows for a required option's value, by what the option names: a release or run to create.
PLACEHOLDERS = {"release": "RELEASE", "run": "RUN"}


def verb_words(command):
    """The verb words of a producing command (`picforge mine --input …` → ("pipeline", "mine")), None when no verb
    has them."""
    words = command.split()[1:]
    words = words[:next((i for i, word in enumerate(words) if word.startswith("-")), len(words))]
    found = verbs.find(tuple(words))
    return found.words if found is not None else None


def next_verb(verb):
    """The Verb of the same area after `verb` by the stage graph, or None when the graph says nothing (it writes no
    stage, or its area is no dataset with a release)."""
    producing = producers()
    written = {name for name, command in producing.items() if verb_words(command) == verb.words}
    if not written:
        return None
    for name, stage in stages.REGISTRY.items():
        if name in written or not written & set(stage.upstream):
            continue
        after = verbs.find(verb_words(producing.get(name, "")) or ())
        if after is None or after.area != verb.area:
            continue
        export = verbs.find((after.area, "export", after.target)) if after.name == "ingest" else None
        return export if export not in (None, verb) else after  # a stage people send back: its sheets go out first
    dataset = verbs.areas().areas[verb.area].dataset
    return verbs.find((verb.area, "release")) if dataset is not None else None


def run_of(verb, args):
    """The run `verb` wrote or added to: its `--out` when it creates a run, else its `--run`."""
    if verb.writes is not None and verb.writes.kind == "run":
        return args.out
    return getattr(args, "run", None)


def next_command(verb, args):
    """The Command printed as `next:` after `verb` succeeds: the one it declares, else the derived one (None:
    none)."""
    return verb.next_step(args) if verb.next_step is not None else derived_step(verb, args)


def derived_step(verb, args):
    """The Command after `verb` for the parsed `args`: the next verb with the run and a placeholder for each other
    option it requires; None when the stage graph names no next verb."""
    after = next_verb(verb)
    if after is None:
        return None
    return verbs.Command(" ".join(after.words), (("--run", run_of(verb, args)), *required_placeholders(after)))


def required_placeholders(verb):
    """(flag, placeholder) of every option `verb` requires besides --run: a release or run it creates as RELEASE or
    RUN, any other by its metavar."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False)
    verb.add_arguments(parser)
    found = []
    for action in parser._actions:
        if not action.required or not action.option_strings or "--run" in action.option_strings:
            continue
        writes = getattr(action, "picforge_writes", None)
        shown = PLACEHOLDERS.get(writes.kind) if writes is not None else None
        found.append((action.option_strings[0], shown or action.metavar or action.dest.upper()))
    return tuple(found)
