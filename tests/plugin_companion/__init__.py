"""A companion that lives outside picforge, declared as a plug-in distribution declares one: the word counts of a
text file as a stage, and their release (tests/test_companions.py registers it through an entry point)."""
from picforge.companions import Companion

STAGE = "wordcount-words"
SCHEMA = "wordcount_word"
COMPANION = Companion(
    name="wordcount",
    help="count the words of a text file and release the counts (the plug-in companion of the tests)",
    stages={STAGE: "picforge wordcount count --text FILE --out {run}"},
    schemas="tests.plugin_companion.schemas",
    release="tests.plugin_companion.release:write_release",
)
