"""The core's `AREA evaluate`, built from a dataset's `Evaluate` declaration (picforge.datasets.Dataset.evaluate): its
inputs and options become flags, the dataset's score hook does the work, the core prints the scores (the report
hook's lines, else JSON), writes them to `--out` when asked and names the next command."""
import dataclasses
import functools
import json

KINDS = ("release", "run", "file")


@dataclasses.dataclass(frozen=True)
class Input:
    """One thing `AREA evaluate` reads: its flag, what it holds (the help), its kind (a `release` folder, a `run`, a
    `file`) and whether it must always be given."""

    flag: str
    holds: str
    kind: str = "file"
    required: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Input {self.flag}: kind {self.kind!r} is not one of {', '.join(KINDS)}")

    @property
    def dest(self):
        return self.flag.lstrip("-").replace("-", "_")

    def add(self, parser, required):
        """This input's flag on `parser` (an argparse parser or group), checked as the command starts."""
        from picforge.options import add_run_option, existing_path, existing_release

        if self.kind == "run":
            return add_run_option(parser, self.holds, required=required)
        if self.kind == "release":
            return parser.add_argument(self.flag, required=required, metavar="RELEASE_DIR", type=existing_release,
                                       help=f"release folder holding {self.holds}")
        return parser.add_argument(self.flag, required=required, metavar="FILE", type=existing_path(self.holds),
                                   help=self.holds)


@dataclasses.dataclass(frozen=True)
class Evaluate:
    """How the core's `AREA evaluate` scores a dataset. `score`: `score(inputs, options[, force])` returning the
    scores as a JSON-able dict (`inputs`: {dest: value} of the Inputs); `inputs`: what it reads; `one_of`: flags of
    which exactly one is given; `options`: an options dataclass (picforge.stages.option() fields: its flags);
    `report`: scores → the lines printed (default: the JSON); `stages`: the hook writes stages into `--run`, redone
    with `--force` (the verb after it is the one the stage graph names)."""

    score: str
    help: str
    inputs: tuple
    one_of: tuple = ()
    description: str = ""
    options: str | None = None
    report: str | None = None
    stages: bool = False

    def __post_init__(self):
        flags = {found.flag for found in self.inputs}
        if not set(self.one_of) <= flags or any(found.required for found in self.inputs if found.flag in self.one_of):
            raise ValueError(f"Evaluate {self.score}: one_of names inputs it declares and does not require")

    def hooks(self):
        """(what, "module:NAME") of each hook it names, for the dataset to check."""
        return (("evaluate hook", self.score), ("evaluate options", self.options), ("evaluate report", self.report))


def evaluate_verbs(dataset):
    """(`AREA evaluate`,) of `dataset`, built from its Evaluate declaration; () when it declares none."""
    from picforge.verbs import Verb, Writes

    declared = dataset.evaluate
    if declared is None:
        return ()
    verb = Verb(dataset.name, "evaluate", None, functools.partial(run_evaluate, dataset),
                functools.partial(add_evaluate_options, dataset), help=declared.help,
                description=declared.description or None, next_step=lambda args: after_evaluate(verb, args),
                writes=Writes("file", "also write the scores as JSON here", optional=True))
    return (verb,)


def add_evaluate_options(dataset, parser):
    """The declared inputs (those of `one_of` as one required choice), the options' flags, and --force."""
    from picforge.stages import add_flags

    declared = dataset.evaluate
    choice = parser.add_mutually_exclusive_group(required=True) if declared.one_of else None
    for found in declared.inputs:
        in_choice = found.flag in declared.one_of
        found.add(choice if in_choice else parser, required=found.required and not in_choice)
    options = options_class(dataset)
    if options is not None:
        add_flags(parser, options)
    if declared.stages:
        parser.add_argument("--force", action="store_true", help="recompute the scores even if up to date")


def options_class(dataset):
    """The evaluate options dataclass `dataset` declares, imported now, or None."""
    from picforge.hooks import imported

    spec = dataset.evaluate.options
    return spec and imported(dataset.name, "evaluate options", spec)


def run_evaluate(dataset, args):
    """Score with the dataset's hook, print the scores, and write them to --out when given."""
    from picforge.hooks import imported
    from picforge.files import write_atomically
    from picforge.options import check_device, options_from_args

    declared = dataset.evaluate
    options = options_from_args(options_class(dataset), args) if declared.options else None
    if hasattr(options, "device_spec"):
        check_device(options.device_spec())
    inputs = {found.dest: getattr(args, found.dest) for found in declared.inputs}
    score = imported(dataset.name, "evaluate hook", declared.score)
    scores = score(inputs, options, force=args.force) if declared.stages else score(inputs, options)
    report = imported(dataset.name, "evaluate report", declared.report) if declared.report else None
    print("\n".join(report(scores)) if report else json.dumps(scores, indent=2))
    if args.out:
        given = {name: value for name, value in inputs.items() if value is not None}
        write_atomically(args.out, json.dumps(dict(scores, inputs=given), indent=2, sort_keys=True))
        print(f"scores → {args.out}")
    return 0


def after_evaluate(verb, args):
    """What the stage graph names after the stages it wrote (picforge.hints), else nothing is left."""
    from picforge.hints import derived_step
    from picforge.verbs import nothing_left

    return derived_step(verb, args) or nothing_left("the scores above are the evaluation")
