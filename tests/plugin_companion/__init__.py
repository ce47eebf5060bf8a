"""A companion that lives outside picforge, declared as a plug-in distribution declares one: the word counts of a
text file as a stage, and their release, which the core's generic verb writes through the hook declared here
(tests/test_companions.py registers it through an entry point)."""
from picforge.datasets import Dataset, Release

STAGE = "wordcount-words"
SCHEMA = "wordcount_word"
DATASET = Dataset(
    name="wordcount",
    help="count the words of a text file and release the counts (the plug-in companion of the tests)",
    stages={STAGE: "picforge wordcount count --text FILE --out {run}"},
    schemas="tests.plugin_companion.schemas",
    release=Release(
        "tests.plugin_companion.release:write_release", reads=STAGE,
        licence="`other`: the text keeps its terms", counts="words",
        help="write the word counts as a Hugging Face dataset with its card",
        description="Read wordcount-words and write data/test.jsonl, README.md, stats.json, croissant.json and "
                    "MANIFEST.json."),
)
