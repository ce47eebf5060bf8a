"""`picforge mine` end to end on real and synthetic dumps: stages, manifests, determinism, bad input."""
import bz2
import json
import shlex
import shutil

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from picforge.cli import main
from picforge.errors import InputError
from picforge.rundir import RunDir
from pipeline.mine import MineOptions, mine
from pipeline.stages.clean import CleanPages
from pipeline.stages.read_dump import ReadDump
from pipeline.stages.sentences import SplitSentences
from tests.conftest import pipeline_fixture
from tests.pipeline.dump_factory import dump_xml, planted_pages, write_dump

STAGES = ("read-dump", "clean", "sentences", "phrases", "group", "pairs", "domains", "select")
# a test that runs the whole `mine` itself is end to end: slow (`make test` only), as those reading planted_run
end_to_end = pytest.mark.slow


@pytest.fixture(scope="module")
def planted_dump(tmp_path_factory):
    """A dump of the planted pages (not mined)."""
    return write_dump(tmp_path_factory.mktemp("planted-dump") / "planted.xml.bz2", planted_pages())


@pipeline_fixture(scope="module")
def planted_run(tmp_path_factory, wic_zip):
    tmp = tmp_path_factory.mktemp("planted")
    dump = write_dump(tmp / "planted.xml.bz2", planted_pages())
    out = str(tmp / "run")
    funnel = mine(dump, str(wic_zip), out)
    return dump, out, funnel


def test_testpipeline_reads_cleans_and_splits_real_sample(enwiki_sample):
    with TestPipeline() as p:
        sentences = p | ReadDump(str(enwiki_sample)) | CleanPages() | SplitSentences()
        per_page = (sentences | beam.Map(lambda s: (s["page_id"], 1)) | beam.CombinePerKey(sum)
                    | beam.Map(lambda kv: kv[0]))
        assert_that(per_page, equal_to([217916, 3277686, 316, 9391, 4702]))


def test_max_pages_keeps_the_first_articles_of_split_files_in_order(tmp_path):
    pages = planted_pages()
    write_dump(tmp_path / "dump-part2.xml.bz2", pages[3:])
    write_dump(tmp_path / "dump-part1.xml.bz2", pages[:3])
    with TestPipeline() as p:
        ids = p | ReadDump(str(tmp_path / "dump-part*.xml.bz2"), max_pages=4) | beam.Map(lambda a: a["page_id"])
        assert_that(ids, equal_to([page["page_id"] for page in pages[:4]]))


@end_to_end
def test_real_sample_runs_every_stage_with_manifests(tmp_path, enwiki_sample, wic_zip):
    funnel = mine(str(enwiki_sample), str(wic_zip), str(tmp_path / "run"))
    run = RunDir(str(tmp_path / "run"))
    for stage in STAGES:
        manifest = run.require(stage)
        assert manifest["stage"] == stage and manifest["fingerprint"]
    counts = {row["step"]: row["count"] for row in funnel}
    assert counts["1 articles (namespace 0, non-empty, no redirects)"] == 5
    assert counts["2 sentences"] > 500
    assert counts["4 phrases with a WiC word"] > 10
    assert json.loads((tmp_path / "run" / "funnel.json").read_text()) == funnel
    for page in run.iter_records("clean"):
        assert "{{" not in page["text"] and "[[" not in page["text"] and "&amp;" not in page["text"]


def test_planted_polysemous_phrase_comes_out_on_top(planted_run):
    _, out, funnel = planted_run
    triplets = list(RunDir(out).iter_records("select"))
    assert triplets[0]["phrase"] == "massive figure"
    top = triplets[0]
    assert {top["page1"]["title"], top["page2"]["title"]} == {"Northwind quarterly earnings", "Marble temple of Ardos"}
    for page in (top["page1"], top["page2"]):
        start, end = page["char_span"]
        assert page["sentence"][start:end].lower() == "massive figure"
        assert page["sentence"] in page["passage"]
    phrases = {t["phrase"] for t in triplets}
    assert "interest rate" not in phrases  # same sense on both pages: semantic filter
    assert "green harbour capital" not in phrases  # proper noun
    assert all("Harbour festival" not in (t["page1"]["title"], t["page2"]["title"]) for t in triplets)  # missing words
    csv_text = (RunDir(out).root + "/annotation_candidates.csv")
    assert open(csv_text).read().splitlines()[1].split(",")[2] == "massive figure"


def test_passage_is_five_sentences_two_before_two_after(planted_run):
    _, out, _ = planted_run
    run = RunDir(out)
    top = next(iter(run.iter_records("select")))
    sentences = sorted((s for s in run.iter_records("sentences") if s["page_id"] == top["page1"]["page_id"]),
                       key=lambda s: s["idx"])
    idx = next(s["idx"] for s in sentences if s["text"] == top["page1"]["sentence"])
    assert top["page1"]["passage"] == " ".join(s["text"] for s in sentences[idx - 2: idx + 3])


def test_rerun_skips_up_to_date_stages_and_is_byte_identical(planted_run, wic_zip, tmp_path):
    dump, out, funnel = planted_run
    before = {stage: RunDir(out).read_manifest(stage)["seconds"] for stage in STAGES}
    again = mine(dump, str(wic_zip), out)
    assert again == funnel
    assert {stage: RunDir(out).read_manifest(stage)["seconds"] for stage in STAGES} == before
    fresh = str(tmp_path / "fresh")
    mine(dump, str(wic_zip), fresh)
    select_file = "select/part-00000-of-00001.parquet"
    assert open(f"{out}/{select_file}", "rb").read() == open(f"{fresh}/{select_file}", "rb").read()
    for stage in ("sentences", "phrases", "group", "pairs"):
        key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        assert sorted(RunDir(out).iter_records(stage), key=key) == sorted(RunDir(fresh).iter_records(stage), key=key)


def unscored_rows(run, stage):
    """A stage's records without the encoder scores (they move in the last digits with the batches), sorted."""
    rows = [{k: v for k, v in r.items() if k not in ("semantic_score", "domain_score")} for r in run.iter_records(stage)]
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.parametrize("mode, beam_args", [
    ("job per stage", []), ("two worker processes", ["--direct_num_workers", "2", "--direct_running_mode", "multi_processing"])])
def test_one_job_per_stage_and_worker_processes_give_the_same_records(planted_run, wic_zip, tmp_path, mode, beam_args):
    dump, out, _ = planted_run
    other = str(tmp_path / "run")
    mine(dump, str(wic_zip), other, MineOptions(job_per_stage=mode == "job per stage"), beam_args=beam_args)
    ours, theirs = RunDir(out), RunDir(other)
    assert ours.read_manifest("pairs")["job"] == list(STAGES)
    assert theirs.read_manifest("pairs")["job"] == (["pairs"] if mode == "job per stage" else list(STAGES))
    for stage in STAGES:
        assert unscored_rows(ours, stage) == unscored_rows(theirs, stage), stage
    assert list(theirs.iter_records("select"))[0]["triplet_id"] == list(ours.iter_records("select"))[0]["triplet_id"]


def test_changed_option_reruns_only_affected_stages(planted_run, wic_zip, tmp_path):
    dump, out, _ = planted_run
    run = RunDir(out)
    before = {stage: run.read_manifest(stage)["fingerprint"] for stage in STAGES}
    mine(dump, str(wic_zip), out, MineOptions(top_n=1))
    after = {stage: run.read_manifest(stage)["fingerprint"] for stage in STAGES}
    assert [s for s in STAGES if before[s] != after[s]] == ["select"]
    assert run.count_rows("select") == 1
    mine(dump, str(wic_zip), out)  # restore for other tests


def test_cli_prints_funnel_progress_and_a_next_command_that_works(planted_run, wic_zip, capsys, caplog, tmp_path):
    dump, out, funnel = planted_run
    copy = str(tmp_path / "run")
    shutil.copytree(out, copy)
    assert main(["mine", "--input", dump, "--wic", str(wic_zip), "--out", copy]) == 0
    printed = capsys.readouterr().out
    assert "6 triplets selected" in printed and "annotation_candidates.csv" in printed
    progress = [r.getMessage() for r in caplog.records if r.name == "picforge.progress"]
    assert progress == [f"{', '.join(stages)}: up to date, skipped" for stages in (
        ["read-dump", "clean"], ["sentences"], ["phrases"], ["group"], ["pairs"], ["domains"], ["select"])]
    assert f"\n{funnel[-1]['count']} triplets selected: {copy}/select/" in printed
    next_command = shlex.split(printed.split("next, the expert sheets: ", 1)[1].splitlines()[0])
    assert next_command[0] == "picforge" and main(next_command[1:]) == 0
    assert list((tmp_path / "run" / "annotation" / "expert").glob("expert-expert1-*.csv"))


@pytest.mark.parametrize("threshold_mode", ["quantile"])
def test_quantile_threshold_mode_keeps_the_lower_half(tmp_path, planted_run, wic_zip, threshold_mode):
    dump, _, _ = planted_run
    out = str(tmp_path / "q")
    mine(dump, str(wic_zip), out, MineOptions(threshold_mode=threshold_mode, quantile_window=(0.0, 0.5)))
    run = RunDir(out)
    counters = run.read_manifest("pairs")["counters"]
    formed = counters["pairs/pairs-formed"]
    assert counters["pairs/pairs-scored"] == formed >= 4
    assert 1 <= run.count_rows("pairs") <= formed // 2 + 1


# --- bad input: a clear error or a counted skip, never a crash of the whole run ---

def _counters(out):
    return RunDir(out).read_manifest("read-dump")["counters"]


@end_to_end
def test_truncated_bz2_keeps_pages_before_the_cut_and_counts_the_file(tmp_path, wic_zip):
    data = bz2.compress(dump_xml(planted_pages()).encode())
    path = tmp_path / "cut.xml.bz2"
    path.write_bytes(data[: len(data) * 2 // 3])
    out = str(tmp_path / "run")
    with pytest.raises(InputError, match="no articles were read"):
        mine(str(path), str(wic_zip), out)  # the cut falls inside the single bz2 block: nothing decodes
    assert _counters(out)["read-dump/files-unreadable"] == 1


@end_to_end
def test_a_malformed_page_costs_that_page_only(tmp_path, wic_zip):
    good = dump_xml(planted_pages()[:2])
    broken = good.replace("</mediawiki>", "  <page><title>Bad</title><ns>0</ns><id>9</id><revision><text>oops</page>")
    path = tmp_path / "bad.xml"
    path.write_text(broken)
    out = str(tmp_path / "run")
    mine(str(path), str(wic_zip), out)
    assert RunDir(out).count_rows("read-dump") == 2
    assert _counters(out)["read-dump/skipped-unparseable"] == 1
    assert "read-dump/files-unreadable" not in _counters(out)


@end_to_end
def test_invalid_utf8_and_huge_pages_are_counted_skips(tmp_path, wic_zip):
    pages = planted_pages()
    xml = dump_xml(pages + [{"title": "Huge", "page_id": 900, "wikitext": "word " * (10 * 1024 * 1024)}]).encode()
    xml = xml.replace(b"Mortgage lenders", b"Mortgage \xff\xfe lenders")
    path = tmp_path / "mixed.xml.bz2"
    path.write_bytes(bz2.compress(xml))
    out = str(tmp_path / "run")
    mine(str(path), str(wic_zip), out)
    counters = _counters(out)
    assert counters["read-dump/skipped-invalid-utf8"] == 1
    assert counters["read-dump/skipped-too-large"] == 1
    assert RunDir(out).count_rows("read-dump") == 3


def test_empty_dump_is_a_clear_error(tmp_path, wic_zip):
    path = tmp_path / "empty.xml"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty.xml: not a pages-articles dump .it is an empty file"):
        mine(str(path), str(wic_zip), str(tmp_path / "run"))


def test_missing_dump_is_a_clear_error(tmp_path, wic_zip):
    with pytest.raises(InputError, match="no file matches"):
        mine(str(tmp_path / "nope-*.xml.bz2"), str(wic_zip), str(tmp_path / "run"))


def test_wic_zip_with_wrong_layout_is_a_clear_error(tmp_path, planted_dump):
    import zipfile

    bad = tmp_path / "wic.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("words.txt", "bank\n")
    with pytest.raises(InputError, match="official WiC layout"):
        mine(planted_dump, str(bad), str(tmp_path / "run"))


def test_cli_reports_input_errors_in_one_line(tmp_path, wic_zip, capsys):
    assert main(["mine", "--input", str(tmp_path / "none.xml"), "--wic", str(wic_zip), "--out", str(tmp_path / "r")]) == 2
    assert "picforge: error:" in capsys.readouterr().err
