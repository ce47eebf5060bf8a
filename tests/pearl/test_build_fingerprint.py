"""Every PEARL build option reaches the `pearl-phrases` fingerprint, apart from those that change how fast it runs."""
import dataclasses

import pytest

from companions.pearl.build import corpus_step
from companions.pearl.options import PearlOptions
from picforge.rundir import RunDir
from picforge.stage_jobs import fingerprints
from tests.pipeline.test_mine_fingerprints import another

NEUTRAL = {"batch_size", "device"}  # spaCy's batch and where the encoder runs (output=False fields)


@pytest.fixture
def corpus_print(tmp_path):
    """The `pearl-phrases` fingerprint of some options over a mining run's (empty) `sentences` stage."""
    mining = RunDir(str(tmp_path / "mined"))
    mining.write_stage("sentences", None, None, inputs={}, options={})
    run = RunDir(str(tmp_path / "pearl"))
    return lambda options: fingerprints([corpus_step(mining, run, options)])["pearl-phrases"]


@pytest.mark.parametrize("field", dataclasses.fields(PearlOptions), ids=lambda f: f.name)
def test_a_build_option_changes_the_corpus_fingerprint_unless_it_is_neutral(corpus_print, tmp_path, field):
    base = PearlOptions()
    value = another(field, getattr(base, field.name))
    if field.name == "vectors":  # a vectors file counts by its identity: it must exist
        (tmp_path / "vectors.vec").write_text("2 1\nword 0.5\nother 0.25\n")
        value = str(tmp_path / "vectors.vec")
    changed = dataclasses.replace(base, **{field.name: value})
    assert (corpus_print(changed) == corpus_print(base)) == (field.name in NEUTRAL)


def test_the_encoder_device_is_not_in_the_fingerprint(corpus_print):
    assert corpus_print(PearlOptions(device="cpu")) == corpus_print(PearlOptions(device="cuda"))
    assert corpus_print(PearlOptions(precision="bf16")) != corpus_print(PearlOptions())
