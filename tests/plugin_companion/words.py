"""The plug-in companion's one stage: the words of a text file and how often each occurs."""
import collections
import re

from picforge import rundir
from tests.plugin_companion import SCHEMA, STAGE

WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


def word_counts(text):
    """[{word, count}] of the lower-cased words of `text`, most frequent first (ties by word)."""
    counts = collections.Counter(match.group(0).lower() for match in WORD.finditer(text))
    return [{"word": word, "count": n} for word, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def count_into(text_path, out):
    """Write the stage of `text_path`'s word counts into the run `out`; returns its manifest."""
    run = rundir.RunDir(rundir.writable_folder(out))
    with open(text_path, encoding="utf-8") as fh:
        rows = word_counts(fh.read())
    with run.locked("wordcount count"):
        return run.write_stage(STAGE, rows, SCHEMA, inputs={"text": rundir.input_identity(text_path, "--text")},
                               options={})
