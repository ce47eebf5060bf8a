"""PEARL: typed phrases from a mining run's sentences, their augmentations, paraphrases and hard negatives."""
from companions.pearl.declarations import PEARL
from picforge.datasets import Dataset, Release
from picforge.stages import produced

DATASET = Dataset(
    name="pearl",
    help="build and release the PEARL phrase corpus: typed phrases, augmentations, hard negatives",
    stages=produced(PEARL),
    schemas="companions.pearl.schemas",
    release=Release(
        "companions.pearl.release:write_release", reads="pearl-phrases",
        licence="cc-by-sa-4.0: what the Wikipedia text allows", counts="phrases",
        help="write the PEARL corpus as JSON Lines splits (by phrase) with a dataset card",
        description="Read `pearl-phrases` (and `pearl-paraphrases` when present) and write data/<split>.jsonl (the "
                    "splits `pearl build --seed/--ratios` chose), README.md (card with distributions from the "
                    "written files), plots and MANIFEST.json."),
)
