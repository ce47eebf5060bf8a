"""PEARL: typed phrases from a mining run's sentences, their augmentations, paraphrases and hard negatives."""
from picforge.datasets import Dataset, Release

DATASET = Dataset(
    name="pearl",
    help="build and release the PEARL phrase corpus: typed phrases, augmentations, hard negatives",
    stages={
        "pearl-phrases": "picforge pearl build --run MINING_RUN --out {run}",
        "pearl-paraphrases": "picforge pearl paraphrase --run {run}",
    },
    schemas="companions.pearl.schemas",
    release=Release(
        "companions.pearl.release:write_release", reads="pearl-phrases",
        licence="cc-by-sa-4.0: what the Wikipedia text allows", counts="phrases",
        help="write the PEARL corpus as JSON Lines splits (by phrase) with a dataset card",
        description="Read `pearl-phrases` (and `pearl-paraphrases` when present) and write data/<split>.jsonl (the "
                    "splits `pearl build --seed/--ratios` chose), README.md (card with distributions from the "
                    "written files), plots and MANIFEST.json."),
)
