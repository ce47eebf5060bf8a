"""Batches of prepared question files: the plan file's checks, a batch's plan kept fixed, the --reject
list, and the Answer XML `mturk save --out` writes back from the ledger."""
import json

import pytest

from annotation.mturk import hits as mturk_hits, questions as mturk_questions, round1
from picforge.ledger import Ledger
from picforge import mturk_xml
from picforge.errors import InputError
from picforge.mturk_xml import HTML_QUESTION_LIMIT, HTML_QUESTION_NS

META = {"environment": "sandbox", "hit_type": mturk_hits.HitTypeSettings(reward="0.80").as_meta(), "assignments": 3}


def question(text="<p>Rate it</p>"):
    return f'<HTMLQuestion xmlns="{HTML_QUESTION_NS}"><HTMLContent><![CDATA[{text}]]></HTMLContent>' \
           "<FrameHeight>0</FrameHeight></HTMLQuestion>"


@pytest.fixture
def plan_dir(tmp_path):
    (tmp_path / "q").mkdir()
    for name in ("a", "b"):
        (tmp_path / "q" / f"{name}.xml").write_text(question(f"<p>{name}</p>"), encoding="utf-8")
    return tmp_path


def write_plan(folder, entries, key="hits"):
    path = folder / "plan.json"
    path.write_text(json.dumps({key: entries}), encoding="utf-8")
    return str(path)


def test_entries_are_read_with_paths_relative_to_the_plan_and_extra_keys_kept(plan_dir):
    path = write_plan(plan_dir, [{"request_token": "t-a", "question_xml": "q/a.xml", "form_id": "0001A"},
                                 {"request_token": "t-b", "question_xml": str(plan_dir / "q" / "b.xml")}], "forms")
    hits, questions = mturk_questions.read_question_plan(path)
    assert [(h["token"], h.get("form_id")) for h in hits] == [("t-a", "0001A"), ("t-b", None)]
    assert hits[0]["question_xml"] == str(plan_dir / "q" / "a.xml")
    assert questions == {"t-a": question("<p>a</p>"), "t-b": question("<p>b</p>")}


@pytest.mark.parametrize("entries, message", [
    ([], "no HITs in it"),
    ([{"question_xml": "q/a.xml"}], "entry 1: 'request_token' must be a string of 1 to 56 characters"),
    ([{"request_token": "x" * 57, "question_xml": "q/a.xml"}], "entry 1: 'request_token' must be"),
    ([{"request_token": "t", "question_xml": "q/a.xml"}, {"request_token": "t", "question_xml": "q/b.xml"}],
     "entry 2: request_token 't' is also entry 1's"),
    ([{"request_token": "t"}], "entry 1: 'question_xml' must name the HIT's question file"),
    ([{"request_token": "t", "question_xml": "q/missing.xml"}], "entry 1: question file .*missing.xml cannot be read"),
    ([{"request_token": "t", "question_xml": "q/bad.xml"}], "entry 1: .*bad.xml is not well-formed XML"),
    ([{"request_token": "t", "question_xml": "q/html.xml"}], "holds <html>, not one of MTurk's HTMLQuestion"),
    ([{"request_token": "t", "question_xml": "q/big.xml"}], f"over MTurk's {HTML_QUESTION_LIMIT}-byte Question"),
])
def test_a_bad_plan_entry_is_named_before_anything_is_posted(plan_dir, entries, message):
    (plan_dir / "q" / "bad.xml").write_text("<HTMLQuestion>", encoding="utf-8")
    (plan_dir / "q" / "html.xml").write_text("<html><body/></html>", encoding="utf-8")
    (plan_dir / "q" / "big.xml").write_text(question("x" * HTML_QUESTION_LIMIT), encoding="utf-8")
    path = write_plan(plan_dir, entries)
    with pytest.raises(InputError, match=message) as err:
        mturk_questions.read_question_plan(path)
    assert str(err.value).startswith(path)


def test_a_planned_batch_keeps_its_questions_and_options(plan_dir):
    path = write_plan(plan_dir, [{"request_token": "t-a", "question_xml": "q/a.xml"}])
    ledger = Ledger.for_run(str(plan_dir / "run"))
    plan, _, new = mturk_questions.plan_batch(ledger, "b1", path, META)
    assert new
    round1.store_plan(ledger, "b1", plan)
    assert mturk_questions.plan_batch(ledger, "b1", path, META)[1:] == ({"sandbox-t-a": question("<p>a</p>")}, False)
    with pytest.raises(InputError, match="batch 'b1' was planned with other assignments"):
        mturk_questions.plan_batch(ledger, "b1", path, {**META, "assignments": 5})
    (plan_dir / "q" / "a.xml").write_text(question("<p>changed</p>"), encoding="utf-8")
    with pytest.raises(InputError, match="tokens or question files differ from those batch 'b1' was planned with"):
        mturk_questions.plan_batch(ledger, "b1", path, META)
    ledger.dispose()


@pytest.mark.parametrize("text, message", [
    ("id,feedback\nA1,bad\n", r"reject.csv: row 1: missing column\(s\) assignment_id"),
    ("assignment_id,feedback\nA1,\n", "row 2: give both an assignment_id and the feedback"),
    ("assignment_id,feedback\nA1,ok\nA9,never saved\n", "row 3: assignment A9 is not saved in batch 'b1'"),
])
def test_the_reject_list_is_checked_against_the_saved_assignments(tmp_path, text, message):
    ledger = Ledger.for_run(str(tmp_path / "run"))
    with ledger.transaction() as tx:
        tx.add_batch("b1", mturk_questions.KIND)
        tx.record_assignment("A1", "b1", "W1", "Submitted", hit_id="H1")
    reject = tmp_path / "reject.csv"
    reject.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        mturk_questions.assignment_verdicts(ledger, "b1", str(reject), approve_all=True)
    ledger.dispose()


def test_answer_xml_gives_back_the_posted_fields():
    fields = {"form_id": "0001A", "item1_inspired1": "Tom & <Jerry>", "item1_inspired2": "café ünïcode",
              "item1_rating": "", "comments": "line one\nline two"}
    assert mturk_xml.fields_from_answer_xml(mturk_xml.answer_xml(fields)) == fields
