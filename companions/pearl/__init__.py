"""PEARL: typed phrases from a mining run's sentences, their augmentations, paraphrases and hard negatives."""
from picforge.companions import Companion

COMPANION = Companion(
    name="pearl",
    help="build and release the PEARL phrase corpus: typed phrases, augmentations, hard negatives",
    stages={
        "pearl-phrases": "picforge pearl build --run MINING_RUN --out {run}",
        "pearl-paraphrases": "picforge pearl paraphrase --run {run}",
    },
    schemas="companions.pearl.schemas",
    release="companions.pearl.release:write_release",
)
