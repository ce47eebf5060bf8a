"""STS-B-Context's stage names, evaluation setups and generation settings, in a module without Beam (for --help)."""
import dataclasses

GENERATIONS = "generations"
DATASET = "dataset"
OPENAI_ENDPOINT = "https://api.openai.com/v1"
SETUPS = ("full", "ngram-forward", "ngram-single", "bm25")
SOURCES = (DATASET, GENERATIONS)


@dataclasses.dataclass(frozen=True)
class GenerationSettings:
    """What decides a completion (and so its cache key)."""
    model: str = "gpt-3.5-turbo"
    endpoint: str = OPENAI_ENDPOINT
    temperature: float = 1.0
    max_tokens: int = 256
    seed: int = 0

    def params(self):
        return {"endpoint": self.endpoint, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed}
