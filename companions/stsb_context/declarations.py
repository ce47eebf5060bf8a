"""The stages STS-B-Context writes (SLICE, Sections 4.2 and 5), each one declaration with its options: the verbs'
flags, each stage's fingerprint and manifest options, and the command that makes a missing stage derive from here.
A downstream stage counts an upstream one by its fingerprint and its files' sha256 (RunDir.stage_identity), so a
partial generation run completed later under the same options still counts as changed."""
import dataclasses

from companions.stsb_context.settings import COMPARISON, DATASET, GENERATIONS, GLOVE_SETUPS, SETUPS, SOURCES
from picforge import stages
from picforge.encoders import DeviceOptions
from picforge.llm import EndpointOptions, GenerationSettings
from picforge.options import finite_float, non_negative_int, positive_int
from picforge.stages import Stage, option

VALIDATION = "validation"
SPAN_SETUPS = ("ngram-forward", "ngram-single")
MODEL, GLOVE = "model", "glove"


@dataclasses.dataclass(frozen=True)
class GenerationsOptions(EndpointOptions):
    model: str = option(GenerationSettings.model, "chat model", output=True)
    temperature: float = option(GenerationSettings.temperature, "sampling temperature of the chat model",
                                output=True, type=finite_float)
    completion_tokens: int = option(GenerationSettings.max_tokens, "max_tokens of each completion", output=True,
                                    type=positive_int, metavar="N")
    seed: int = option(0, "seed of the start letters and of the API", output=True, type=non_negative_int)
    exact_match: bool = option(False, "require the target sentence exactly (default also allows a lower-case first "
                                      "letter and no final full stop)", output=True)
    max_requests: int = option(1500, "at most N requests this run", output=False, type=non_negative_int,
                               metavar="N")
    max_tokens: int = option(500_000, "at most N prompt+completion tokens this run", output=False,
                             type=non_negative_int, metavar="N")


@dataclasses.dataclass(frozen=True)
class SourceOptions:
    source: str = option(SOURCES[0], "evaluate the validated dataset or the kept generations", output=True,
                         flag="--from", choices=SOURCES)


@dataclasses.dataclass(frozen=True)
class EncoderOptions(SourceOptions, DeviceOptions):
    encoder: str | None = option(None, "sentence encoder, a sentence-transformers model directory (default: bundled "
                                       "all-MiniLM-L6-v2)", output=True, metavar="MODEL")
    batch_size: int = option(64, "texts per encoder batch", output=False, type=positive_int)


@dataclasses.dataclass(frozen=True)
class SpanOptions(SourceOptions):
    min_span: int = option(1, "fewest words in an n-gram", output=True, type=positive_int, metavar="MIN")
    max_span: int = option(20, "most words in an n-gram", output=True, type=positive_int, metavar="MAX")


@dataclasses.dataclass(frozen=True)
class EncoderSpanOptions(EncoderOptions, SpanOptions):
    """A span setup scored by the sentence encoder."""


@dataclasses.dataclass(frozen=True)
class EvaluateOptions(EncoderSpanOptions):
    """What `stsb-context evaluate` takes besides its stages' options: which setups, and the GloVe rows' vectors."""

    setup: tuple = option(SETUPS, "setup to run, repeated for each", output=False, choices=SETUPS, repeat=True)
    vectors: str | None = option(None, "word vectors in GloVe or word2vec text format (the paper: glove.840B.300d.txt) "
                                       f"for the GloVe rows of the {' and '.join(GLOVE_SETUPS)} setups; none without "
                                       "it; counted by the file's identity", output=False, metavar="FILE")


class StsbStage(Stage):
    """A stage of STS-B-Context: it counts an upstream stage by its fingerprint and files."""

    @staticmethod
    def upstream_identity(run, name):
        return run.stage_identity(name)


@stages.register
class Generations(StsbStage):
    """One generated context per STS-B pair, the target phrase located verbatim in it (sources: the STS-B file and
    the endpoint that answered)."""

    name, schema, sources = GENERATIONS, "stsb_generation", ("stsb", "endpoint")
    Options = GenerationsOptions


@stages.register
class Validation(StsbStage):
    """One validation sheet per annotator (CSV and XLSX) and the guidelines."""

    name, upstream = VALIDATION, (GENERATIONS,)


@stages.register
class Dataset(StsbStage):
    """The rows both annotators kept, from their filled sheets (source `sheets`)."""

    name, schema, upstream, sources = DATASET, "stsb_context", (GENERATIONS, VALIDATION), ("sheets",)


class Evaluation(StsbStage):
    """One setup's best-span scores of the rows of the stage `--from` names (one of `upstream`)."""

    schema, upstream = "stsb_span_score", SOURCES
    setup = encoder = None

    @classmethod
    def inputs(cls, run, given, sources=None):
        return {given.source: cls.upstream_identity(run, given.source), **(sources or {})}


def stage_name(setup, encoder=MODEL):
    """`eval-<setup>` for the sentence model and BM25, `eval-glove-<setup>` for the word vectors."""
    return f"eval-{setup}" if encoder == MODEL else f"eval-{encoder}-{setup}"


def evaluation(setup, encoder):
    """The registered declaration of one evaluated row: its options are those its scorer reads."""
    spans = setup in SPAN_SETUPS
    if encoder == GLOVE:
        options, sources = SpanOptions if spans else SourceOptions, ("vectors",)
    elif setup == "bm25":
        options, sources = SourceOptions, ()
    else:
        options, sources = EncoderSpanOptions if spans else EncoderOptions, ()
    return stages.register(type(f"Eval_{encoder}_{setup}".replace("-", "_"), (Evaluation,), {
        "__doc__": f"Setup {setup} scored by the {encoder}.", "name": stage_name(setup, encoder), "setup": setup,
        "encoder": encoder, "sources": sources, "Options": options}))


EVALUATIONS = tuple(evaluation(setup, MODEL) for setup in SETUPS) + tuple(
    evaluation(setup, GLOVE) for setup in GLOVE_SETUPS)


@stages.register
class Comparison(StsbStage):
    """Williams' test of every evaluated row of one source (those up to date with it) against the best."""

    name, schema, upstream = COMPARISON, "stsb_comparison", tuple(stage.name for stage in EVALUATIONS)
    Options = SourceOptions


STSB_CONTEXT = (Generations, Validation, Dataset, *EVALUATIONS, Comparison)
stages.produced_by("picforge stsb-context generate --stsb FILE --out {run}", (Generations,))
stages.produced_by("picforge stsb-context export validation --run {run}", (Validation,))
stages.produced_by("picforge stsb-context ingest validation --run {run} --sheets SHEET SHEET", (Dataset,))
stages.produced_by("picforge stsb-context evaluate --run {run}", (*EVALUATIONS, Comparison))


@dataclasses.dataclass(frozen=True)
class ValidationExportOptions:
    """Whether to export before every pair has an answer, and to overwrite sheets of an earlier run."""

    partial: bool = option(False, "export even though some pairs have no answer yet", output=False)
    force: bool = option(False, "overwrite sheets exported from an earlier run", output=False)


@dataclasses.dataclass(frozen=True)
class ValidationIngestOptions:
    """Whether to redo the dataset stage when it is up to date."""

    force: bool = option(False, "redo the stage even if it is up to date", output=False)

