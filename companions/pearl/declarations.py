"""PEARL's stage declarations, light (no Beam, no spaCy): `pearl-phrases` (`picforge pearl build`) and
`pearl-paraphrases` (`picforge pearl paraphrase`); their flags, fingerprints, producing commands and the `next:`
hint derive from them."""
import dataclasses

from companions.pearl.options import PearlOptions
from companions.pearl.stage_names import PARAPHRASES, PHRASES
from picforge import stages
from picforge.llm import EndpointOptions, GenerationSettings
from picforge.options import finite_float, non_negative_int, positive_int
from picforge.stages import Stage, option


@dataclasses.dataclass(frozen=True)
class ParaphraseOptions(EndpointOptions):
    """The paraphrase model's settings (in the fingerprint), the endpoint, and what a run may spend."""

    model: str = option(GenerationSettings.model, "chat model", output=True)
    temperature: float = option(0.7, "sampling temperature of the paraphrase model", output=True, type=finite_float)
    completion_tokens: int = option(32, "max_tokens of each answer", output=True, type=positive_int, metavar="N")
    seed: int = option(0, "seed sent to the API", output=True, type=non_negative_int)
    max_requests: int = option(1000, "at most N requests this run", output=False, type=non_negative_int, metavar="N")
    max_tokens: int = option(200_000, "at most N prompt+completion tokens this run", output=False,
                             type=non_negative_int, metavar="N")


@stages.register
class PearlPhrases(Stage):
    """Typed phrases (count >= 2) with augmentations and hard negatives, from a mining run's sentences."""

    name, schema, upstream, sources = PHRASES, "pearl_phrase", ("sentences",), ("dump", "vectors")
    Options = PearlOptions

    def expand(self, inputs, options):
        from companions.pearl.corpus import BuildCorpus

        settings = dict(dataclasses.asdict(options), device=options.device_spec())
        return inputs["sentences"] | self.name >> BuildCorpus(**settings)

    def finalise(self, run):
        from companions.pearl.stage_sort import sort_stage

        sort_stage(run, self.name, self.schema)


@stages.register
class PearlParaphrases(Stage):
    """One LLM paraphrase per phrase of `pearl-phrases` (source: the endpoint that answered)."""

    name, schema, upstream, sources = PARAPHRASES, "pearl_paraphrase", (PHRASES,), ("endpoint",)
    Options = ParaphraseOptions


PEARL = (PearlPhrases, PearlParaphrases)
stages.produced_by("picforge pearl build --run MINING_RUN --out {run}", (PearlPhrases,))
stages.produced_by("picforge pearl paraphrase --run {run}", (PearlParaphrases,))
