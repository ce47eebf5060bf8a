"""PEARL: typed phrases from a mining run's sentences, their augmentations, paraphrases and hard negatives."""
from picforge.stage_registry import register_stages

register_stages({
    "pearl-phrases": "picforge pearl build --run MINING_RUN --out {run}",
    "pearl-paraphrases": "picforge pearl paraphrase --run {run}",
})
