"""Every mining option reaches the fingerprint of the first stage whose output it changes, and of no stage before
it; options that change where or how fast a stage runs reach none."""
import dataclasses
import pathlib

import pytest

from picforge.resources import read_wic_words
from picforge.rundir import RunDir
from picforge.stage_jobs import fingerprints
from picforge.stages import options_table
from pipeline.mine import mining_steps
from pipeline.mine_stages import MINING, MineOptions

ROOT = pathlib.Path(__file__).resolve().parents[2]

# the first stage each option changes (the stages reading that stage change with it)
FIRST_STAGE = {
    "max_pages": "read-dump",
    "spacy_model": "phrases", "parse_all_sentences": "phrases", "min_words": "phrases", "max_words": "phrases",
    "seed": "group",
    "encoder": "pairs", "pooling": "pairs", "precision": "pairs", "min_similarity": "pairs", "max_similarity": "pairs",
    "threshold_mode": "pairs", "quantile_window": "pairs", "max_length_diff": "pairs", "max_contexts": "pairs",
    "categories_from_api": "domains", "categories_api_url": "domains",
    "top_n": "select",
}
# where or how fast: the encoders' and spaCy's device and batch sizes, one Beam job or several, the categories
# cache and the contact sent to the MediaWiki API (stage_jobs.OUTPUT_NEUTRAL for the transforms' arguments)
NEUTRAL = {"device", "encode_batch_size", "spacy_batch_size", "job_per_stage", "categories_cache_dir",
           "categories_contact"}


def another(field, value):
    """A value of `field` other than `value`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-other"
    if isinstance(value, tuple):
        return tuple(v + 0.25 for v in value)
    return 7 if "int" in str(field.type) else "other"


def stages_reading(steps, first):
    """The stages whose fingerprint follows `first`: its step's stages and, in order, every stage reading one."""
    changed = set()
    for step in steps:
        if first in step.stages or changed & set(step.after):
            changed |= set(step.stages)
    return changed


@pytest.fixture(scope="module")
def plan(tmp_path_factory, enwiki_sample, wic_zip):
    """fingerprints(options) of the mining steps over the 5-page sample, and those steps' stages in order."""
    run, words = RunDir(str(tmp_path_factory.mktemp("plan"))), read_wic_words(str(wic_zip))

    def steps(options):
        return mining_steps(run, str(enwiki_sample), str(wic_zip), words, options)

    return lambda options: fingerprints(steps(options)), steps


def test_every_mine_option_is_either_in_a_stage_fingerprint_or_named_neutral():
    assert not set(FIRST_STAGE) & NEUTRAL
    assert {f.name for f in dataclasses.fields(MineOptions)} == set(FIRST_STAGE) | NEUTRAL


@pytest.mark.parametrize("field", dataclasses.fields(MineOptions), ids=lambda f: f.name)
def test_an_option_changes_its_stage_and_those_after_it_never_one_before(plan, field):
    prints, steps = plan
    base = MineOptions(categories_from_api=True)  # the API's URL counts only while the API gives the categories
    changed = dataclasses.replace(base, **{field.name: another(field, getattr(base, field.name))})
    before, after = prints(base), prints(changed)
    stale = {stage for stage in before if before[stage] != after[stage]}
    expected = stages_reading(steps(base), FIRST_STAGE[field.name]) if field.name in FIRST_STAGE else set()
    assert stale == expected


def test_the_api_url_is_neutral_while_categories_come_from_the_dump(plan):
    prints, _ = plan
    assert prints(MineOptions(categories_api_url="https://de.wikipedia.org/w/api.php")) == prints(MineOptions())


def test_the_docs_table_of_stages_and_options_is_the_declarations():
    assert options_table(MINING) in (ROOT / "docs" / "mining.md").read_text()
