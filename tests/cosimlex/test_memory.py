"""`cosimlex candidates` holds a bounded share of the dump on the embedded runner: its groupings go through
picforge.shuffle's files; only the per-pair sample (a combiner of at most --max-contexts each) stays in memory."""
from companions.cosimlex.candidate_pipeline import CosimlexCandidates
from companions.cosimlex.simlex import SimLexPair
from tests.groupings import in_memory_groupings


def test_every_grouping_but_the_sample_goes_through_files_on_the_embedded_runner():
    pairs = [SimLexPair(1, "child", "adult", None, 5.2)]
    candidates = CosimlexCandidates(pairs, "en", "en_core_web_sm", ["minilm"], per_encoder=2)
    assert in_memory_groupings(candidates, combiners=("sample contexts",)) == []
