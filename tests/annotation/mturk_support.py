"""Test data for the MTurk round-1 tests: a run directory with a `select` stage, a ledger holding
accepted expert annotations (as the expert round leaves it), a gold bank, and MTurk's Answer XML."""
import datetime
import json
import xml.sax.saxutils

import boto3

from picforge import ledger as L
from picforge.rundir import RunDir
from tests.triplets import triplet, triplet_side

SCRIPT = "<script>alert(1)</script>"
ANSWER_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
NOW = datetime.datetime(2026, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)


TRIPLETS = [
    triplet("T1", "massive figure",
            triplet_side(11, ["The statue stood in the harbour.", "It was made of bronze.",
                              "Visitors described a massive figure towering over the port.",
                              "It fell in an earthquake.", "Its remains lay on the ground for centuries."],
                         "massive figure", title="Colossus"),
            triplet_side(12, ["The report was published in May.", "It covered ten years.",
                              "The deficit reached a massive figure of four billion dollars.",
                              f"Critics wrote {SCRIPT} in blogs.", "Costs & fees rose by $5."],
                         "massive figure", title="Budget")),
    triplet("T2", "open field",
            triplet_side(21, ["The armies met at dawn.", "Rain had fallen all night.",
                              "The cavalry charged across the open field.", "Many horses fell.",
                              "The battle ended at noon."], "open field", title="Battle"),
            triplet_side(22, ["New methods appeared in the 1990s.", "Funding grew quickly.",
                              "Quantum computing remained an open field for young researchers.",
                              "Several groups competed.", "Results were ${question_2} uncertain."],
                         "open field", title="Research")),
    triplet("T3", "cold case",
            triplet_side(31, ["The detective retired in 2001.", "She kept her notes.",
                              "Her last cold case was solved by DNA evidence.", "The suspect confessed.",
                              "The family was relieved."], "cold case", title="Police"),
            triplet_side(32, ["The bar opened in 1950.", "It sold local beer.", "A cold case of beer stood by the door.",
                              "Guests helped themselves.", "Nobody paid."], "cold case", title="Drinks")),
]
ANNOTATIONS = [
    {"triplet_id": "T1", "annotator": "ann1", "q1": "huge statue", "q2": "large number", "same_meaning": False},
    {"triplet_id": "T2", "annotator": "ann1", "q1": "grassy meadow", "q2": "unsettled research area",
     "same_meaning": False},
    {"triplet_id": "T3", "annotator": "ann2", "q1": "unsolved crime", "q2": "chilled crate", "same_meaning": False},
]


def _passage(sentence):
    """A gold passage shaped like the run's: the phrase's sentence in the middle of five."""
    return f"The town grew along the valley. Its people kept old customs. {sentence} Visitors came each summer. " \
           "Most stayed for a week."


def gold_bank():
    """Fourteen verified questions with known answers (both kinds, both answers), passages shaped like TRIPLETS'."""
    bank = []
    for n in range(14):
        if n % 2:
            bank.append({"gold_id": f"g{n:02d}", "kind": "paraphrase", "phrase": "river bank",
                         "passage1": _passage(f"Case {n}: they fished from the river bank all day."),
                         "paraphrase": "shore of the stream" if n % 4 == 1 else "savings institution",
                         "answer": n % 4 == 1, "explanation": "A river bank is the land beside a river."})
        else:
            bank.append({"gold_id": f"g{n:02d}", "kind": "same_meaning", "phrase": "hard drive",
                         "passage1": _passage(f"Case {n}: the hard drive stored every photo."),
                         "passage2": _passage("It was a hard drive through the snow." if n % 4 == 0
                                              else "He replaced the hard drive of the laptop."),
                         "answer": n % 4 == 2, "explanation": "Compare what the phrase refers to."})
    return bank


def write_gold(path):
    path.write_text("".join(json.dumps(record) + "\n" for record in gold_bank()), encoding="utf-8")
    return str(path)


def make_run(root, ledger_url=None):
    """A run directory whose `select` stage holds TRIPLETS, and its ledger (at `ledger_url`, default the run
    directory's SQLite file) with ANNOTATIONS accepted."""
    run_dir = str(root / "run")
    run = RunDir(run_dir)
    run.write_stage("select", TRIPLETS, "triplet", inputs={}, options={})
    ledger = L.Ledger.for_run(run_dir, ledger_url)
    with ledger.transaction() as tx:
        for annotation in ANNOTATIONS:
            batch_id = f"expert-{annotation['annotator']}-001"
            tx.add_batch(batch_id, "expert", round=L.ROUND_EXPERT)
            [iid] = tx.add_items(batch_id, [(annotation["triplet_id"], "triplet")])
            phrase = next(t["phrase"] for t in TRIPLETS if t["triplet_id"] == annotation["triplet_id"])
            tx.record_expert_annotation(annotation, batch_id, phrase)
            tx.record_decision(iid, L.ROUND_EXPERT, L.ACCEPTED, decided_by=annotation["annotator"])
    return run_dir, ledger


def answer_xml(fields):
    """The QuestionFormAnswers document MTurk returns for an HTMLQuestion form's posted fields."""
    parts = [f'<QuestionFormAnswers xmlns="{ANSWER_NS}">']
    for name, value in fields.items():
        parts.append(f"<Answer><QuestionIdentifier>{xml.sax.saxutils.escape(name)}</QuestionIdentifier>"
                     f"<FreeText>{xml.sax.saxutils.escape(value)}</FreeText></Answer>")
    parts.append("</QuestionFormAnswers>")
    return "".join(parts)


def hit_id(n):
    """The id of the n-th fake HIT (MTurk's 30-character form)."""
    return f"3HIT{n:026d}"


def hit_record(n, token, status="Assignable", completed=0):
    """HIT n of type HT1 (3 assignments) as create_hit_with_hit_type and get_hit return it."""
    return {"HITId": hit_id(n), "HITTypeId": "HT1", "HITGroupId": "GRP1", "HITStatus": status,
            "RequesterAnnotation": token, "MaxAssignments": 3, "CreationTime": NOW,
            "NumberOfAssignmentsAvailable": 3 - completed, "NumberOfAssignmentsPending": 0,
            "NumberOfAssignmentsCompleted": completed}


def real_client():
    """A real boto3 MTurk client (requests validated against the API model); only ever used stubbed."""
    return boto3.client("mturk", region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def record_calls(client):
    """A list that fills with (operation, params) of every request the client builds."""
    calls = []

    def remember(params, model, **_):
        calls.append((model.name, dict(params)))

    client.meta.events.register("before-parameter-build.mturk", remember)
    return calls
