"""Reading rating answers from every source, idempotent merging, one context per pair per annotator."""
import json

import pytest

from companions.cosimlex.answers import (mark_repeat_pairs, merge_ratings, mturk_answer_fields, read_submissions,
                                       submission_ratings)
from picforge.errors import InputError

ITEMS = {"cup|mug#1", "cup|mug#2", "car|bicycle#1", "car|bicycle#2"}
ANSWER_XML = ('<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="http://mechanicalturk.amazonaws.com/'
              'AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd">'
              "<Answer><QuestionIdentifier>form_id</QuestionIdentifier><FreeText>0001A</FreeText></Answer>"
              "<Answer><QuestionIdentifier>item1_id</QuestionIdentifier><FreeText>cup|mug#1</FreeText></Answer>"
              "<Answer><QuestionIdentifier>item1_inspired1</QuestionIdentifier><FreeText>tea</FreeText></Answer>"
              "<Answer><QuestionIdentifier>item1_inspired2</QuestionIdentifier><FreeText>table</FreeText></Answer>"
              "<Answer><QuestionIdentifier>item1_rating</QuestionIdentifier><FreeText>5</FreeText></Answer>"
              "</QuestionFormAnswers>")


def ratings_of(path, data):
    return [r for s in read_submissions(path, data) for r in submission_ratings(s, ITEMS, path)]


def test_mturk_assignments_from_list_assignments_for_hit():
    response = {"Assignments": [{"AssignmentId": "A1", "WorkerId": "W1", "HITId": "H1",
                                 "SubmitTime": "2024-05-01 10:00:00+02:00", "Answer": ANSWER_XML}]}
    (rating,) = ratings_of("page.json", json.dumps(response).encode())
    assert rating == {"assignment_id": "A1", "worker_id": "W1", "submitted_at": "2024-05-01T08:00:00+00:00",
                      "source": "mturk", "form_id": "0001A", "item_id": "cup|mug#1", "pair_id": "cup|mug",
                      "context_no": 1, "inspired1": "tea", "inspired2": "table", "rating": 5, "status": "ok"}
    with pytest.raises(InputError, match="x: the Answer XML does not parse"):
        mturk_answer_fields(ANSWER_XML[:-5], "x")


def test_batch_results_csv_and_invalid_ratings():
    csv_text = ('"HITId","AssignmentId","WorkerId","SubmitTime","Answer.form_id","Answer.item1_id",'
                '"Answer.item1_inspired1","Answer.item1_inspired2","Answer.item1_rating"\r\n'
                '"H1","A2","W2","Tue Jan 02 10:00:00 PST 2024","0001B","cup|mug#2","road","race","7"\r\n')
    (rating,) = ratings_of("Batch_1_batch_results.csv", csv_text.encode())
    assert rating["source"] == "mturk-batch" and rating["submitted_at"] == "2024-01-02T18:00:00+00:00"
    assert rating["rating"] is None and rating["status"] == "invalid-rating"


@pytest.mark.parametrize("name, data, message", [
    ("a.json", b'{"hello": 1}', "a.json record 1: not a rating answer"),
    ("a.jsonl", b'{"form_id": "1", "worker_id": "w", "answers": {"item1_id": "cup|mug#1"}}\n{oops\n',
     "a.jsonl: line 2: not valid JSON"),
    ("a.json", b'{"form_id": "1", "worker_id": "w", "answers": {"x": 1}}', "has no item fields"),
    ("a.json", json.dumps({"form_id": "1", "worker_id": "w", "answers": {"item1_id": "dog|cat#1"}}).encode(),
     "rates unknown item 'dog|cat#1'"),
    ("Batch.csv", b"HITId,Answer.x\nH,1\n", "AssignmentId/WorkerId columns missing"),
])
def test_bad_answer_files_are_named(name, data, message):
    with pytest.raises(InputError, match=message):
        ratings_of(name, data)


def rating(assignment, worker, item, when, value=3):
    return {"assignment_id": assignment, "worker_id": worker, "submitted_at": when, "source": "standalone",
            "form_id": "f", "item_id": item, "pair_id": item.split("#")[0], "context_no": int(item[-1]),
            "inspired1": "a", "inspired2": "b", "rating": value, "status": "ok"}


def test_an_annotator_counts_only_for_the_first_context_of_a_pair():
    first = [rating("A1", "W1", "cup|mug#1", "2024-01-01"), rating("A1", "W1", "car|bicycle#2", "2024-01-01")]
    later = [rating("A2", "W1", "cup|mug#2", "2024-01-03"), rating("A3", "W2", "cup|mug#2", "2024-01-02")]
    merged, added = merge_ratings(first, later + first)
    assert added == 2 and len(merged) == 4
    statuses = {(r["assignment_id"], r["item_id"]): r["status"] for r in mark_repeat_pairs(merged)}
    assert statuses == {("A1", "cup|mug#1"): "ok", ("A1", "car|bicycle#2"): "ok",
                        ("A2", "cup|mug#2"): "repeat-pair", ("A3", "cup|mug#2"): "ok"}
    assert merge_ratings(merged, later) == (merged, 0)
