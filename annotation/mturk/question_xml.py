"""The HTMLQuestion of each round-1 HIT (MTurk's XML formats themselves are picforge.mturk_xml)."""
from annotation.mturk import hit_pages, round1
from picforge.errors import InputError
from picforge.mturk_xml import html_question_xml


def question_xmls(plan, pages):
    """{token: HTMLQuestion XML} of every HIT in the plan (all checked against MTurk's size limit first)."""
    practice = round1.practice_of(plan)
    try:
        return {token: html_question_xml(hit_pages.html_question_page(questions, practice))
                for token, questions in pages.items()}
    except ValueError as err:
        raise InputError(str(err)) from None
