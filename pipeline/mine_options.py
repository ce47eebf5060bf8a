"""Every option of a mining run with its default, in a module that imports no Beam (for `picforge mine --help`)."""
import dataclasses

from picforge.encoders import BUNDLED_MODEL, DEFAULT_ENCODE_BATCH_SIZE

CATEGORIES_API_URL = "https://en.wikipedia.org/w/api.php"
CATEGORIES_CACHE_DIR = "~/.cache/picforge/categories"  # expanded on each worker


@dataclasses.dataclass(frozen=True)
class MineOptions:
    """Every option of a mining run; those that change what it produces are recorded in the stage manifests
    (not where the categories cache lives, nor the contact sent to the MediaWiki API)."""

    top_n: int = 19500
    max_pages: int | None = None
    seed: int = 0
    spacy_model: str | None = None
    spacy_batch_size: int = 256
    embedding_model: str = BUNDLED_MODEL
    pooling: str = "model"
    device: str = "auto"
    encode_batch_size: int = DEFAULT_ENCODE_BATCH_SIZE
    min_similarity: float = -0.3
    max_similarity: float = 0.2
    threshold_mode: str = "fixed"
    quantile_window: tuple = (0.0, 0.5)
    max_length_diff: int = 3
    min_words: int = 5
    max_words: int = 25
    max_contexts: int = 32
    parse_all_sentences: bool = False
    job_per_stage: bool = False
    categories_from_api: bool = False
    categories_api_url: str = CATEGORIES_API_URL
    categories_cache_dir: str = CATEGORIES_CACHE_DIR
    categories_contact: str | None = None
