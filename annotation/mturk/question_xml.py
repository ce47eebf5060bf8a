"""MTurk's XML: the HTMLQuestion of each round-1 HIT, and the QuestionFormAnswers document of posted fields."""
import xml.etree.ElementTree as ET

from annotation.mturk import hit_pages, round1
from picforge.errors import InputError

ANSWER_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"


def fields_from_answer_xml(xml):
    """{QuestionIdentifier: value} of an MTurk QuestionFormAnswers document (one per posted form field)."""
    fields = {}
    for answer in ET.fromstring(xml):
        if answer.tag.rsplit("}", 1)[-1] != "Answer":
            continue
        parts = {child.tag.rsplit("}", 1)[-1]: (child.text or "") for child in answer}
        fields[parts.get("QuestionIdentifier", "")] = parts.get("FreeText", parts.get("SelectionIdentifier", ""))
    return fields


def answer_xml(fields):
    """The QuestionFormAnswers document of posted fields {name: value} (the inverse of fields_from_answer_xml)."""
    root = ET.Element("QuestionFormAnswers", xmlns=ANSWER_NS)
    for name, value in fields.items():
        answer = ET.SubElement(root, "Answer")
        ET.SubElement(answer, "QuestionIdentifier").text = name
        ET.SubElement(answer, "FreeText").text = value
    return ET.tostring(root, encoding="unicode")


def question_xmls(plan, pages):
    """{token: HTMLQuestion XML} of every HIT in the plan (all checked against MTurk's size limit first)."""
    practice = round1.practice_of(plan)
    try:
        return {token: hit_pages.html_question_xml(hit_pages.html_question_page(questions, practice))
                for token, questions in pages.items()}
    except ValueError as err:
        raise InputError(str(err)) from None
