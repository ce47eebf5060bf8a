"""MTurk's XML wire formats, for every area that posts HITs: a page wrapped as an HTMLQuestion (within MTurk's size
limit) and the QuestionFormAnswers document of an assignment's posted fields."""
import xml.etree.ElementTree as ET

HTML_QUESTION_LIMIT = 65535  # bytes MTurk accepts in one Question
HTML_QUESTION_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
ANSWER_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"


def html_question_xml(page):
    """The page wrapped as an MTurk HTMLQuestion; refuses pages over MTurk's 64 KB limit."""
    xml = (f'<HTMLQuestion xmlns="{HTML_QUESTION_NS}">\n<HTMLContent><![CDATA[\n{page}]]></HTMLContent>\n'
           "<FrameHeight>0</FrameHeight>\n</HTMLQuestion>")
    size = len(xml.encode("utf-8"))
    if size > HTML_QUESTION_LIMIT:
        raise ValueError(f"a HIT page is {size} bytes, over MTurk's {HTML_QUESTION_LIMIT}-byte limit; "
                         "put fewer questions in each HIT (--questions-per-hit)")
    return xml


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
