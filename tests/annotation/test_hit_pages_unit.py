"""HIT page HTML, qualification test XML and answer parsing, without a browser."""
import xml.etree.ElementTree as ET

import pytest

from annotation.mturk import hit_pages
from annotation.mturk.hit_pages import PARAPHRASE, SAME_MEANING, PageQuestion, Passage
from picforge import mturk_xml

SCRIPT = "<script>alert(1)</script>"


def _paraphrase_question(text="The <b>bank</b> of the river ${x} & more", phrase="bank"):
    start = text.index(phrase)
    return PageQuestion(PARAPHRASE, phrase, (Passage(text, start, start + len(phrase)),), f"shore {SCRIPT}")


def test_escape_text_neutralises_markup_and_template_variables():
    assert hit_pages.escape_text(f'{SCRIPT} "a" & ${{question_1}}') == (
        "&lt;script&gt;alert(1)&lt;/script&gt; &quot;a&quot; &amp; &#36;{question_1}")


def test_question_section_escapes_passage_phrase_and_paraphrase():
    section = hit_pages.question_section(3, _paraphrase_question())
    assert "<script>" not in section and "<b>bank" not in section and "${" not in section
    assert '<mark class="phrase">bank</mark>' in section
    assert "shore &lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert section.count('name="answer_3"') == 2 and 'value="yes" required' in section


def test_find_phrase_is_case_insensitive():
    text = "Later an Open Field appears; another open field follows."
    assert hit_pages.find_phrase(text, "open field") == (9, 19)
    assert hit_pages.find_phrase(text, "closed field") is None


def test_page_question_checks_its_passages():
    with pytest.raises(ValueError, match="needs 2 passage"):
        PageQuestion(SAME_MEANING, "p", (Passage("p", 0, 1),))
    with pytest.raises(ValueError, match="kind"):
        PageQuestion("other", "p", (Passage("p", 0, 1),))


def test_html_question_xml_refuses_pages_over_64_kb():
    question = _paraphrase_question(text="bank " + "word " * 20000)
    with pytest.raises(ValueError, match="--questions-per-hit"):
        mturk_xml.html_question_xml(hit_pages.html_question_page([question]))


def test_html_question_xml_is_well_formed_with_the_page_in_cdata():
    page = hit_pages.html_question_page([_paraphrase_question()])
    root = ET.fromstring(mturk_xml.html_question_xml(page))
    content = root.find(f"{{{mturk_xml.HTML_QUESTION_NS}}}HTMLContent").text
    assert content.strip() == page.strip()
    assert 'id="mturk_form"' in content and 'name="assignmentId"' in content


def test_slot_answers_reads_yes_no_and_ignores_other_fields():
    fields = {"answer_1": "yes", "answer_2": " No ", "comments": "fine", "practice_1": "no", "assignmentId": "A"}
    assert hit_pages.slot_answers(fields) == {1: True, 2: False}
    with pytest.raises(ValueError, match="field answer_4: answer 'maybe'"):
        hit_pages.slot_answers({"answer_4": "maybe"})


def test_qualification_test_and_answer_key_are_well_formed():
    questions = [(f"g{n}", _paraphrase_question()) for n in range(6)]
    form = ET.fromstring(hit_pages.qualification_test_xml(questions, pass_mark=5))
    ns = {"q": hit_pages.QUESTION_FORM_NS}
    assert [q.find("q:QuestionIdentifier", ns).text for q in form.findall("q:Question", ns)] == [
        f"g{n}" for n in range(6)]
    formatted = form.find("q:Question/q:QuestionContent/q:FormattedContent", ns).text
    assert "<b>bank</b>" in formatted and "&lt;script&gt;" in formatted and "<script>" not in formatted
    assert "at least 5 of the 6" in form.find("q:Overview/q:Text", ns).text
    key = ET.fromstring(hit_pages.answer_key_xml([("g0", True), ("g1", False)]))
    ns = {"k": hit_pages.ANSWER_KEY_NS}
    assert [o.text for o in key.findall("k:Question/k:AnswerOption/k:SelectionIdentifier", ns)] == ["yes", "no"]


def test_crowd_template_has_one_placeholder_per_slot_and_escaped_practice():
    practice = [(_paraphrase_question(), True, f"Because {SCRIPT}")]
    template = hit_pages.crowd_template(4, practice)
    assert [f"${{question_{n}}}" in template for n in range(1, 6)] == [True] * 4 + [False]
    assert "<crowd-form" in template and "&lt;script&gt;" in template and SCRIPT not in template
    assert 'data-answer="yes"' in template
