"""HTML for MTurk verification: HIT pages, the requester-UI template and the qualification test.

Round 1 of PiC (Section 3.3, Appendix J) shows workers two kinds of yes/no question and never the
experts' answers:
  type 1 (`PARAPHRASE`): can paraphrase q replace phrase p in this passage without changing its meaning?
  type 2 (`SAME_MEANING`): does p mean the same in both passages?
Every piece of text from Wikipedia or an annotator goes through `escape_text`, so markup in it
(`<script>`…) shows as text, and `$` cannot start a requester-UI `${variable}`.
"""
import dataclasses
import html
import re
from importlib import resources

PARAPHRASE, SAME_MEANING = "paraphrase", "same_meaning"
QUESTION_KINDS = (PARAPHRASE, SAME_MEANING)
YES, NO = "yes", "no"
ANSWER_FIELD = "answer_{slot}"
COMMENTS_FIELD = "comments"
ANSWER_FIELD_RE = re.compile(r"^answer_(\d+)$")
QUESTION_FORM_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
ANSWER_KEY_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd"
CROWD_ELEMENTS_JS = "https://assets.crowd.aws/crowd-html-elements.js"
PAGE_TITLE = "Do these phrases mean the same?"


@dataclasses.dataclass(frozen=True)
class Passage:
    """A passage and the character span [start, end) of the phrase in it."""
    text: str
    start: int
    end: int


@dataclasses.dataclass(frozen=True)
class PageQuestion:
    """What a worker sees for one yes/no question (never the expected answer)."""
    kind: str
    phrase: str
    passages: tuple
    paraphrase: str = ""

    def __post_init__(self):
        if self.kind not in QUESTION_KINDS:
            raise ValueError(f"question kind must be one of {QUESTION_KINDS}, not {self.kind!r}")
        if len(self.passages) != (1 if self.kind == PARAPHRASE else 2):
            raise ValueError(f"a {self.kind} question needs {1 if self.kind == PARAPHRASE else 2} passage(s)")


def escape_text(text):
    """`text` as HTML character data: markup shows literally and `$` cannot open a `${variable}`."""
    return html.escape(text, quote=True).replace("$", "&#36;")


def find_phrase(passage, phrase):
    """The span of the first case-insensitive occurrence of `phrase` in `passage`, or None."""
    start = passage.lower().find(phrase.lower())
    return None if start < 0 else (start, start + len(phrase))


# Markup for the HIT pages, and the plainer XHTML subset that QuestionForm's FormattedContent allows.
PAGE_TAGS = {"mark": ('<mark class="phrase">', "</mark>"), "paraphrase": ('<q class="paraphrase">', "</q>"),
             "passage": '<p class="passage">', "label": '<p class="passage-label">', "prompt": '<p class="prompt">'}
FORM_TAGS = {"mark": ("<b>", "</b>"), "paraphrase": ("<i>", "</i>"), "passage": "<p>", "label": "<p>", "prompt": "<p>"}


def highlighted(passage, tags=PAGE_TAGS):
    """The passage as escaped HTML with its phrase span wrapped in the highlight markup."""
    text, (open_mark, close_mark) = passage.text, tags["mark"]
    return (escape_text(text[:passage.start]) + open_mark + escape_text(text[passage.start:passage.end])
            + close_mark + escape_text(text[passage.end:]))


def _question_body(question, tags=PAGE_TAGS):
    open_mark, close_mark = tags["mark"]
    phrase = f"{open_mark}{escape_text(question.phrase)}{close_mark}"
    if question.kind == PARAPHRASE:
        open_q, close_q = tags["paraphrase"]
        return (f'{tags["passage"]}{highlighted(question.passages[0], tags)}</p>\n'
                f'{tags["prompt"]}Can {phrase} be replaced by {open_q}{escape_text(question.paraphrase)}{close_q} '
                "in this passage without changing its meaning?</p>")
    first, second = question.passages
    return (f'{tags["label"]}Passage A</p>\n{tags["passage"]}{highlighted(first, tags)}</p>\n'
            f'{tags["label"]}Passage B</p>\n{tags["passage"]}{highlighted(second, tags)}</p>\n'
            f'{tags["prompt"]}Does {phrase} have the same meaning in passage A and in passage B?</p>')


def _choices(name, required):
    flag = " required" if required else ""
    return (f'<div class="choices"><label><input type="radio" name="{name}" value="{YES}"{flag}> Yes</label>'
            f'<label><input type="radio" name="{name}" value="{NO}"> No</label></div>')


def question_section(slot, question):
    """One numbered question with its required Yes/No radio buttons named `answer_<slot>`."""
    return (f'<section class="question" id="question-{slot}">\n<h3>Question {slot}</h3>\n'
            f'{_question_body(question)}\n{_choices(ANSWER_FIELD.format(slot=slot), required=True)}\n</section>')


def practice_section(number, question, answer, explanation=""):
    """A practice question that tells the worker at once whether the choice was right (not scored)."""
    return (f'<section class="practice" data-answer="{YES if answer else NO}">\n<h3>Practice {number}</h3>\n'
            f'{_question_body(question)}\n{_choices(f"practice_{number}", required=False)}\n'
            f'<p class="feedback" hidden><span class="verdict"></span>{escape_text(explanation)}</p>\n</section>')


def _template(name):
    return resources.files("annotation").joinpath("templates", name).read_text(encoding="utf-8")


def _page_body(question_html, practice):
    parts = [_template("mturk_instructions.html")]
    if practice:
        parts.append('<h2>Practice</h2>\n<p>Try these first; they are not scored.</p>')
        parts.extend(practice_section(n, q, answer, explanation)
                     for n, (q, answer, explanation) in enumerate(practice, start=1))
    parts.append("<h2>Questions</h2>")
    parts.extend(question_html)
    parts.append(f'<p><label>Comments (optional)<br><textarea name="{COMMENTS_FIELD}" rows="3" cols="80">'
                 "</textarea></label></p>")
    return "\n".join(parts)


def html_question_page(questions, practice=()):
    """A complete HIT page: `questions` numbered from 1, `practice` as (question, answer, explanation).

    The form posts to `turkSubmitTo/mturk/externalSubmit` with the assignment id, as MTurk expects.
    """
    body = _page_body([question_section(slot, q) for slot, q in enumerate(questions, start=1)], practice)
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{PAGE_TITLE}</title><style>{_template("mturk_page.css")}</style></head>
<body>
<form id="mturk_form" name="mturk_form" method="post" action="https://www.mturk.com/mturk/externalSubmit">
<input type="hidden" id="assignmentId" name="assignmentId" value="">
{body}
<p><input type="submit" id="submitButton" value="Submit"></p>
</form>
<script>{_template("mturk_practice.js")}</script>
<script>{_template("mturk_external_submit.js")}</script>
</body>
</html>
"""


def question_variable(slot):
    """The requester-UI template variable (and CSV column) holding the question in `slot`."""
    return f"question_{slot}"


def crowd_template(slots, practice=()):
    """The requester-UI HIT template: a crowd-form with `${question_<n>}` placeholders for `slots` questions.

    The batch CSV fills each placeholder with `question_section(...)` HTML, already escaped, because
    the requester UI pastes variable values into the page verbatim.
    """
    placeholders = ["${" + question_variable(slot) + "}" for slot in range(1, slots + 1)]
    return f"""<script src="{CROWD_ELEMENTS_JS}"></script>
<style>{_template("mturk_page.css")}</style>
<crowd-form answer-format="flatten-objects">
{_page_body(placeholders, practice)}
</crowd-form>
<script>{_template("mturk_practice.js")}</script>
"""


def slot_answers(fields):
    """{slot: True for yes / False for no} from posted form fields; other fields are ignored.

    Raises ValueError naming the field when an answer is neither yes nor no.
    """
    found = {}
    for name, value in fields.items():
        match = ANSWER_FIELD_RE.match(name)
        if not match or value is None or str(value).strip() == "":
            continue
        answer = str(value).strip().lower()
        if answer not in (YES, NO):
            raise ValueError(f"field {name}: answer {value!r} is neither {YES!r} nor {NO!r}")
        found[int(match.group(1))] = answer == YES
    return found


def qualification_test_xml(questions, pass_mark):
    """QuestionForm XML of the qualification test: one yes/no question per (identifier, PageQuestion)."""
    parts = [f'<QuestionForm xmlns="{QUESTION_FORM_NS}">',
             "<Overview><Title>Qualification test</Title><Text>Each question shows Wikipedia text with a phrase "
             "in bold. Answer Yes or No as the task instructions explain. Answer at least "
             f"{pass_mark} of the {len(questions)} questions correctly to qualify.</Text></Overview>"]
    for identifier, question in questions:
        parts.append(
            f"<Question><QuestionIdentifier>{html.escape(identifier)}</QuestionIdentifier><IsRequired>true</IsRequired>"
            f"<QuestionContent><FormattedContent><![CDATA[{_question_body(question, FORM_TAGS)}]]></FormattedContent></QuestionContent>"
            "<AnswerSpecification><SelectionAnswer><StyleSuggestion>radiobutton</StyleSuggestion><Selections>"
            f"<Selection><SelectionIdentifier>{YES}</SelectionIdentifier><Text>Yes</Text></Selection>"
            f"<Selection><SelectionIdentifier>{NO}</SelectionIdentifier><Text>No</Text></Selection>"
            "</Selections></SelectionAnswer></AnswerSpecification></Question>")
    parts.append("</QuestionForm>")
    return "\n".join(parts)


def answer_key_xml(answers):
    """AnswerKey XML scoring one point per right answer: `answers` is [(identifier, True|False)]."""
    parts = [f'<AnswerKey xmlns="{ANSWER_KEY_NS}">']
    for identifier, answer in answers:
        parts.append(f"<Question><QuestionIdentifier>{html.escape(identifier)}</QuestionIdentifier>"
                     f"<AnswerOption><SelectionIdentifier>{YES if answer else NO}</SelectionIdentifier>"
                     "<AnswerScore>1</AnswerScore></AnswerOption></Question>")
    parts.append("</AnswerKey>")
    return "\n".join(parts)
