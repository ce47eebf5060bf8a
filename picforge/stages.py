"""Stage declarations: an option is a dataclass field (default, help, whether it can change what is written), a
stage names its schema, upstream stages, sources and Options and composes its transforms in `expand`. A verb's
flags, each stage's fingerprint and manifest options, and the command that produces a stage derive from here."""
import argparse
import dataclasses
import json

from picforge.paths import add_output
from picforge.stage_registry import register_stages

# {stage name: its Stage declaration (class)}, filled by `register`.
REGISTRY = {}


def option(default, help, output, flag=None, type=None, choices=None, writes=None, metavar=None, repeat=False,
           many=False, required=False):
    """A field of an options dataclass. `output`: True when the value can change what the stage writes (it goes
    into the fingerprint), False when it cannot (a device, a batch size, a cache folder), or the name of a
    boolean field of the same Options whose truth makes this one count. The flag is `--field-name` unless `flag`
    says otherwise; `type` is the argparse type (default: the default's own type); `writes` ("file", "folder")
    declares a path the verb writes, for the output guard (picforge.paths); `metavar` names the value in help
    (one meaning per name, picforge.verbs.MEANINGS); `repeat`: a flag given once per value, the values (a
    tuple) replacing the default tuple; `many`: one flag followed by its values; `required`: the flag must be
    given."""
    return dataclasses.field(default=default, metadata={"help": help, "output": output, "flag": flag, "type": type,
                                                          "choices": choices, "writes": writes, "metavar": metavar,
                                                          "repeat": repeat, "many": many, "required": required})


class _Repeated(argparse.Action):
    """A flag given once per value: the first value replaces the default tuple, the next ones are added to it."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, self.dest)
        setattr(namespace, self.dest, (() if given is self.default else tuple(given)) + (values,))


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The options of a stage that takes none."""


class Stage:
    """One stage: `name` (its folder in the run), `schema` of its records, `upstream` stage names, `sources`
    (data from outside the run, given with its identity when the stages run), `Options`, and `expand(inputs,
    options)` composing its transforms under one label, the stage's name; `inputs` maps each upstream name to
    its PCollection, each source name to its data, and "pipeline" to the pipeline. `also` names further stages
    ({name: schema}) the same transform writes (read once, written twice); `finalise(run)` runs after the job,
    before the manifests, and writes the run-level files `derived` names."""

    name = schema = None
    upstream = sources = derived = ()
    also = {}
    Options = NoOptions

    def expand(self, inputs, options):
        raise NotImplementedError(f"stage {self.name}: no expand")

    def finalise(self, run):
        """Nothing to do after the job unless a stage says so."""

    @classmethod
    def inputs(cls, run, given, sources=None):
        """What a stage written outside Beam depends on: the identity of each upstream stage in `run`
        (`upstream_identity`) and of each source ({name: identity}); `given`: its options."""
        return {**{name: cls.upstream_identity(run, name) for name in cls.upstream}, **(sources or {})}

    @staticmethod
    def upstream_identity(run, name):
        """How a downstream stage counts the upstream stage `name`: by its fingerprint."""
        return run.require(name)["fingerprint"]

    @classmethod
    def outputs(cls):
        """{stage: schema} this declaration writes."""
        return {cls.name: cls.schema, **cls.also}


def register(stage):
    """Class decorator: add a Stage declaration to the registry (its name and `also` names unique)."""
    for name in stage.outputs():
        if REGISTRY.get(name, stage) is not stage:
            raise ValueError(f"stage {name!r} is declared twice: {REGISTRY[name].__name__} and {stage.__name__}")
        REGISTRY[name] = stage
    return stage


def produced_by(command, declarations):
    """Record that `command` ({run}: the run directory) writes every stage of `declarations`, for the messages
    naming how to make a missing or damaged stage."""
    register_stages(dict.fromkeys((name for stage in declarations for name in stage.outputs()), command))


def produced(declarations):
    """{stage: the command that produces it} of every stage of `declarations`, as `produced_by` registered them (a
    companion's declaration of its stages, derived rather than written again)."""
    from picforge.stage_registry import PRODUCED_BY

    names = [name for stage in declarations for name in stage.outputs()]
    missing = [name for name in names if name not in PRODUCED_BY]
    if missing:
        raise ValueError(f"stages {missing}: no command is registered as producing them (stages.produced_by)")
    return {name: PRODUCED_BY[name] for name in names}


def output_options(options):
    """The fields of an options instance that can change what is written ({name: value}): the manifest's options
    and the fingerprint's; an `output` naming another field counts only while that field is true."""
    counted = {}
    for field in dataclasses.fields(options):
        output = field.metadata.get("output", True)
        if output is True or isinstance(output, str) and getattr(options, output):
            counted[field.name] = getattr(options, field.name)
    try:
        json.dumps(counted)
    except TypeError as err:
        raise TypeError(f"{type(options).__name__}: an output option is not a JSON value ({err})") from None
    return counted


def options_for(stage, given):
    """The stage's Options filled from `given`, any options object holding fields of the same names."""
    return stage.Options(**{field.name: getattr(given, field.name) for field in dataclasses.fields(stage.Options)})


def written_options(stage, given):
    """The manifest's and the fingerprint's options of `stage` filled from `given` (an options object or the
    parsed arguments of a verb whose flags add_flags made)."""
    return output_options(options_for(stage, given))


def stage_print(stage, given, inputs):
    """The fingerprint of `stage` written outside Beam with options from `given` and these `inputs`."""
    from picforge.rundir import fingerprint

    return fingerprint(stage.name, inputs, written_options(stage, given))


def current(run, stage, given, inputs, force=False):
    """The manifest of `stage` in `run` when it is up to date with `inputs` and the options in `given` (marked
    skipped), else None (always None when `force`)."""
    done = None if force else run.up_to_date(stage.name, stage_print(stage, given, inputs))
    return None if done is None else dict(done, skipped=True)


def write(run, stage, rows, given, *, inputs, **extra):
    """Write `stage` outside Beam (RunDir.write_stage): its schema from the declaration, its options the output
    fields of `given`; `extra` as write_stage takes it (files, counters, report…). Returns the manifest."""
    return run.write_stage(stage.name, rows, stage.schema, inputs=inputs, options=written_options(stage, given),
                           **extra)


def merged_options(name, declarations, *extra):
    """One options dataclass with every field of the `declarations`' Options and the `extra` dataclasses (the
    options of a verb that runs those stages); a name two of them declare differently is a ValueError, so one
    name means one thing."""
    fields = {}
    for options in [stage.Options for stage in declarations] + list(extra):
        for field in dataclasses.fields(options):
            known = fields.get(field.name)
            if known is not None and (known.default, known.metadata) != (field.default, field.metadata):
                raise ValueError(f"option {field.name!r}: {options.__name__} declares it unlike another stage")
            fields[field.name] = field
    return dataclasses.make_dataclass(name, [(f.name, f.type, dataclasses.field(default=f.default,
                                                                                 metadata=f.metadata))
                                             for f in fields.values()], frozen=True)


def flag_of(field):
    """The command-line flag of an options field."""
    return field.metadata.get("flag") or "--" + field.name.replace("_", "-")


def add_flags(parser, options_class):
    """One argparse flag per field of `options_class`, its dest the field's name, its help and default from the
    field; a boolean defaulting to False is a switch."""
    for field in dataclasses.fields(options_class):
        meta, default = field.metadata, field.default
        if "help" not in meta:
            raise TypeError(f"{options_class.__name__}.{field.name}: declare it with picforge.stages.option()")
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        help = meta["help"] if default is None or default is False or default == () or meta.get("required") else \
            f"{meta['help']} (default {shown})"
        kwargs = {"dest": field.name, "default": default, "help": help.replace("%", "%%")}
        if isinstance(default, bool):
            kwargs["action"] = "store_true" if not default else argparse.BooleanOptionalAction
        else:
            if meta.get("repeat"):
                kwargs["action"] = _Repeated
            if meta.get("many"):
                kwargs["nargs"] = "+"
            kwargs["type"] = meta.get("type") or (type(default) if default is not None and not meta.get("repeat")
                                                  and not meta.get("many") else str)
            if meta.get("required"):
                kwargs["required"] = True
            if meta.get("choices"):
                kwargs["choices"] = meta["choices"]
            if meta.get("metavar"):
                kwargs["metavar"] = meta["metavar"]
        if meta.get("writes"):
            add_output(parser, flag_of(field), kind=meta["writes"], **kwargs)
        else:
            parser.add_argument(flag_of(field), **kwargs)


def options_table(declarations):
    """A Markdown table of `declarations`: each stage's upstream stages and sources, the flags in its fingerprint
    and those that are not (for the docs, which a test compares with it)."""
    def names(items):
        return ", ".join(f"`{item}`" for item in items) or "—"

    def counted(field):
        output = field.metadata["output"]
        return flag_of(field) + (f"` while `--{output.replace('_', '-')}" if isinstance(output, str) else "")

    rows = ["| stage | reads | in its fingerprint | not in it |", "| --- | --- | --- | --- |"]
    for stage in declarations:
        fields = dataclasses.fields(stage.Options)
        rows.append(f"| {names(stage.outputs())} | {names(stage.upstream + stage.sources)} | "
                    f"{names(counted(f) for f in fields if f.metadata['output'])} | "
                    f"{names(flag_of(f) for f in fields if not f.metadata['output'])} |")
    return "\n".join(rows)
