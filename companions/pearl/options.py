"""PEARL's build options with their defaults, in a module without Beam (for `pearl --help`)."""
import dataclasses

from companions.pearl import synonyms
from companions.pearl.splits import DEFAULT_RATIOS
from picforge.encoders import BUNDLED_MODEL


@dataclasses.dataclass(frozen=True)
class PearlOptions:
    """Every build option; the stage manifest records those that can change the corpus (not `batch_size`)."""

    seed: int = 0
    ratios: tuple = DEFAULT_RATIOS
    parser: str = "spacy"
    benepar_model: str = "benepar_en3"
    spacy_model: str | None = None
    ner_model: str | None = None
    batch_size: int = 128
    min_tokens: int = 2
    max_tokens: int = 10
    min_entity_share: float = 0.5
    min_count: int = 2
    wordnet: str | None = synonyms.DEBIAN_WORDNET
    vectors: str | None = None
    min_vector_cosine: float = 0.7
    min_synonym_cosine: float = 0.8
    encoder: str = BUNDLED_MODEL
    negatives_k: int = 2
    negative_candidates: int = 20
    negatives_encoded: int = 6
    min_edit_similarity: float = 0.5
    max_cosine: float = 0.6
    max_block: int = 1000
