"""Scripted people of docs/walkthrough.md: experts who paraphrase (with a few mistakes to fix), MTurk workers in
the requester UI and on the sandbox, round-2 verifiers and PS verifiers, each filling what picforge exported."""
import csv
import glob
import os

from annotation.mturk import round1
from picforge.ledger import Ledger
from tests.annotation.conftest import read_csv, write_csv

# Expert answers (Q1, Q2, Q3) per phrase of the triplets `make demo` selects on the shipped 103-page sample,
# written for their two passages (e.g. "dominant class": pigs as the ruling class vs a taxonomic class).
EXPERT_ANSWERS = {
    "wide range": ("broad spectrum", "large assortment", "Y"),
    "wide variety": ("diverse array", "broad assortment", "Y"),
    "first time": ("initial occasion", "earliest instance", "Y"),
    "great deal": ("considerable amount", "substantial share", "Y"),
    "major part": ("largest portion", "key role", "N"),
    "one end": ("its tip", "first mouth", "Y"),
    "similar way": ("comparable manner", "like fashion", "Y"),
    "major role": ("significant part", "central place", "Y"),
    "west coast": ("western seaboard", "Atlantic shoreline", "Y"),
    "dominant class": ("ruling elite", "most numerous group", "N"),
    "one way": ("possible method", "single approach", "Y"),
    "economic growth": ("financial expansion", "GDP increase", "Y"),
    "first use": ("earliest application", "initial employment", "Y"),
    "first year": ("initial twelve months", "freshman term", "Y"),
    "necessary condition": ("logical prerequisite", "vital ingredient", "N"),
    "small number": ("modest quantity", "limited group", "Y"),
    "large number": ("great many", "vast quantity", "Y"),
    "prime minister": ("head of government", "government leader", "Y"),
    "important part": ("essential ingredient", "integral feature", "Y"),
    "military service": ("army conscription", "enlistment in the ranks", "Y"),
    "general term": ("umbrella label", "broad name", "Y"),
    "long history": ("lengthy past", "ancient lineage", "Y"),
    "past century": ("last hundred years", "recent era", "Y"),
    "little effect": ("minimal impact", "scant avail", "N"),
    "local circumstances": ("regional conditions", "particular situation", "Y"),
    "great number": ("large crowd", "whole host", "Y"),
    "small area": ("limited patch", "narrow strip", "Y"),
    "common usage": ("everyday parlance", "popular adoption", "Y"),
    "civil war": ("internal armed conflict", "American secession war", "N"),
    "political change": ("governmental reform", "social transformation", "Y"),
    "one such example": ("a case in point", "a typical instance", "Y"),
    "local government": ("municipal administration", "council authority", "Y"),
    "last decade": ("closing ten years", "recent period", "N"),
    "central government": ("national authorities", "federal administration", "Y"),
    "important role": ("essential function", "instrumental part", "Y"),
    "developed world": ("industrialised nations", "wealthy countries", "Y"),
    "mass production": ("assembly-line manufacturing", "large-scale output", "Y"),
    "last years": ("closing stages", "recent seasons", "N"),
    "ruling party": ("governing faction", "incumbent movement", "Y"),
    "life expectancy": ("average lifespan", "expected longevity", "Y"),
    "large part": ("great measure", "vast swath", "N"),
    "folk dances": ("peasant dance forms", "traditional dancing", "Y"),
}
# Mistakes in the first return of the sheets: (phrase, column, wrong value); the fix is EXPERT_ANSWERS.
FIRST_DRAFT = {
    "first use": ("Q1", "application"),                 # one word: refused, fixed from the fix-list
    "first time": ("Q3", "maybe"),                      # not Y/N: refused
    "wide variety": ("Q1", "extensive array"),          # "a extensive array": LanguageTool's EN_A_VS_AN
}
# Round-1 workers who do not endorse an expert's answer: (phrase, kind); those items go to round 2.
WORKER_DISAGREES = {("one end", "q2"), ("dominant class", "q3"), ("great deal", "q2"), ("similar way", "q1"),
                    ("west coast", "q2")}
# Round-2 verifiers: the items they do not endorse (dropped); the rest of round 1's rejections are endorsed.
VERIFIER_REJECTS = {("west coast", "q2")}
BAD_VERIFY2_ANSWER = "yes please"


def _phrase_answers(phrase):
    """The expert's final answers; an unknown phrase (a different mining run) gets a plain two-word paraphrase."""
    return EXPERT_ANSWERS.get(phrase, (f"this {phrase.split()[-1]}", f"that {phrase.split()[-1]}", "Y"))


def first_draft_cells(returned):
    """(file name, sheet row, column) of every FIRST_DRAFT mistake in the returned sheets (header = row 1)."""
    cells = []
    for sheet in sorted(glob.glob(os.path.join(returned, "expert-*.csv"))):
        for row_no, row in enumerate(read_csv(sheet), start=2):
            if row["phrase"] in FIRST_DRAFT:
                cells.append((os.path.basename(sheet), row_no, FIRST_DRAFT[row["phrase"]][0]))
    return cells


def fill_expert_sheets(run, returned, draft):
    """Each expert returns their exported sheet filled in (the first draft with FIRST_DRAFT's mistakes)."""
    os.makedirs(returned, exist_ok=True)
    paths = []
    for sheet in sorted(glob.glob(f"{run}/annotation/expert/expert-*-001.csv")):
        rows = read_csv(sheet)
        for row in rows:
            row["Q1"], row["Q2"], row["Q3"] = _phrase_answers(row["phrase"])
            if draft and row["phrase"] in FIRST_DRAFT:
                column, value = FIRST_DRAFT[row["phrase"]]
                row[column] = value
        name = os.path.basename(sheet).replace("-001", "")
        paths.append(write_csv(os.path.join(returned, name), rows))
    return paths


# A PS verifier's better paraphrase of the phrase in its page-1 sentence, offered as a correction.
PS_CORRECTIONS = {
    "wide range": "great diversity", "wide variety": "rich assortment", "first time": "first occasion",
    "great deal": "large amount", "major part": "bulk", "one end": "one tip", "similar way": "like manner",
    "major role": "large part", "west coast": "Pacific coast", "dominant class": "ruling class",
    "first use": "earliest use", "economic growth": "growth of the economy",
}


def _plan(run, batch):
    ledger = Ledger.for_run(run)
    try:
        with ledger.read() as q:
            return q.batch(batch)["meta"], {a["triplet_id"]: a for a in q.expert_annotations()}
    finally:
        ledger.dispose()


def _annotations(run):
    ledger = Ledger.for_run(run)
    try:
        with ledger.read() as q:
            return {a["triplet_id"]: a for a in q.expert_annotations()}
    finally:
        ledger.dispose()


def _gold_answers(plan):
    """{gold_id: answer} of the gold questions a batch's plan shows."""
    return {gold_id: record["answer"] for gold_id, record in plan["gold"].items()}


def worker_fields(plan, annotations, hit, gold):
    """A careful worker's form for one HIT: every check question right, every expert answer endorsed except
    WORKER_DISAGREES; {answer_<n>: yes|no}."""
    fields = {}
    for number, slot in enumerate(hit["slots"], start=1):
        if slot.startswith(round1.GOLD_PREFIX):
            yes = gold[slot[len(round1.GOLD_PREFIX):]]
        else:
            triplet_id, kind = slot.rsplit("/", 1)
            annotation = annotations[triplet_id]
            endorse = (annotation["phrase"], kind) not in WORKER_DISAGREES
            yes = endorse if kind != "q3" else endorse == annotation["same_meaning"]
        fields[f"answer_{number}"] = "yes" if yes else "no"
    return fields


RESULTS_NAME = "Batch_5123456_batch_results.csv"


def requester_ui_results(run, batch, returned):
    """The Batch_*_batch_results.csv the requester site exports once one worker has done each HIT: its own columns,
    the batch input CSV's columns as Input.*, the crowd-form's fields as Answer.*, then Approve and Reject."""
    plan, annotations = _plan(run, batch)
    gold = _gold_answers(plan)
    inputs = {row["row_key"]: row for row in read_csv(f"{run}/mturk/{batch}/{batch}_input.csv")}
    rows = []
    for n, hit in enumerate(plan["hits"], start=1):
        answers = worker_fields(plan, annotations, hit, gold)
        rows.append({"HITId": f"3UIHIT{n:024d}", "HITTypeId": "3UITYPE000000000000000000000000",
                     "Title": "Do these paraphrases keep the meaning of the phrase?",
                     "Description": "Read a phrase in its passage and judge short paraphrases (yes/no).",
                     "Keywords": "phrase, paraphrase, meaning, English", "Reward": "$4.67",
                     "CreationTime": "Mon Nov 23 08:02:11 PST 2026", "MaxAssignments": "1", "RequesterAnnotation":
                     f"BatchId:5123456;OriginalHitTemplateId:{batch};", "AssignmentDurationInSeconds": "3600",
                     "AutoApprovalDelayInSeconds": "259200", "Expiration": "Mon Nov 30 08:02:11 PST 2026",
                     "NumberOfSimilarHITs": "", "LifetimeInSeconds": "", "AssignmentId": f"3UIASG{n:024d}",
                     "WorkerId": f"AUIWORKER{n % 2}", "AssignmentStatus": "Submitted",
                     "AcceptTime": "Mon Nov 23 08:55:40 PST 2026", "SubmitTime": "Mon Nov 23 09:15:00 PST 2026",
                     "AutoApprovalTime": "Thu Nov 26 09:15:00 PST 2026", "ApprovalTime": "", "RejectionTime": "",
                     "RequesterFeedback": "", "WorkTimeInSeconds": "1160", "LifetimeApprovalRate": "0% (0/0)",
                     "Last30DaysApprovalRate": "0% (0/0)", "Last7DaysApprovalRate": "0% (0/0)",
                     **{f"Input.{k}": v for k, v in inputs[hit["token"]].items()},
                     **{f"Answer.{k}": v for k, v in answers.items()}, "Answer.comments": "", "Approve": "",
                     "Reject": ""})
    os.makedirs(returned, exist_ok=True)
    path = os.path.join(returned, RESULTS_NAME)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def fill_rehearsal(run, batch, path):
    """Script the workers of `mturk rehearse`'s results file: each row's Answer.answer_N cells filled in place as
    worker_fields answers its HIT (found by Input.row_key); returns the filled rows."""
    plan, annotations = _plan(run, batch)
    gold, hits = _gold_answers(plan), {hit["token"]: hit for hit in plan["hits"]}
    def fill(_, row):
        answers = worker_fields(plan, annotations, hits[row["Input.row_key"]], gold)
        assert all(not row[f"Answer.{k}"] for k in answers), "the rehearsal file comes with empty answers"
        row.update({f"Answer.{k}": v for k, v in answers.items()})
    return rewrite_results(path, path, fill)


def rewrite_results(source, out, edit):
    """Read the results file `source`, call edit(n, row) on each row in order, write the rows to `out` with the same
    columns; returns the rows."""
    with open(source, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        columns, rows = reader.fieldnames, list(reader)
    for n, row in enumerate(rows):
        edit(n, row)
    with open(out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def sandbox_worker(run, batch):
    """The sandbox's worker pool: for a HIT token, [(worker_id, posted fields)] as MTurk stores them."""
    def work(token, number):
        plan, annotations = _plan(run, batch)
        hit = next(h for h in plan["hits"] if h["token"] == token)
        return [(f"ASANDBOXWORKER{number % 3}",
                 {**worker_fields(plan, annotations, hit, _gold_answers(plan)), "comments": ""})]
    return work


def fill_verify2(run, returned, bad):
    """Expert verifiers (the pilot's, round 2's) endorse every item they were sent except VERIFIER_REJECTS; `bad`
    writes one unreadable cell."""
    paths, annotations = [], _annotations(run)
    for sheet in sorted(glob.glob(f"{run}/annotation/verify2/verify2-*-[0-9][0-9][0-9].csv")):
        rows = read_csv(sheet)
        for row in rows:
            triplet_id, kind = row["item_id"].rsplit("/", 1)
            annotation = annotations[triplet_id]
            endorse = (annotation["phrase"], kind) not in VERIFIER_REJECTS
            row["answer"] = "Y" if (endorse if kind != "q3" else endorse == annotation["same_meaning"]) else "N"
        if bad and rows:
            rows[-1]["answer"] = BAD_VERIFY2_ANSWER
            bad = False
        paths.append(write_csv(os.path.join(returned, os.path.basename(sheet)), rows))
    return paths


def fill_ps_first_pass(run, returned):
    """A1 endorses every pair but corrects the first positive; A2 rejects the first negative: both go to A3."""
    paths = []
    for role in ("A1", "A2"):
        (sheet,) = glob.glob(f"{run}/annotation/ps-verify/ps-verify-{role}-*-001.csv")
        rows = read_csv(sheet)
        positives = [r for r in rows if r["pair"] == "positive"]
        negatives = [r for r in rows if r["pair"] == "negative"]
        for row in rows:
            row["endorse"], row["correction"] = "Y", ""
        if role == "A1" and positives:
            phrase = positives[0]["phrase"]
            positives[0]["endorse"], positives[0]["correction"] = "N", PS_CORRECTIONS.get(phrase, f"the {phrase}")
        if role == "A2" and negatives:
            negatives[0]["endorse"] = "N"
        paths.append(write_csv(os.path.join(returned, os.path.basename(sheet)), rows))
    return paths


def fill_ps_tiebreak(run, returned):
    """A3 keeps the original negative A2 doubted, and endorses A1's correction rather than the original."""
    (sheet,) = glob.glob(f"{run}/annotation/ps-verify/ps-verify-A3-*-001.csv")
    rows = read_csv(sheet)
    for row in rows:
        row["endorse_original"] = "N" if row["correction_A1"] else "Y"
        row["endorse_correction_A1"] = "Y" if row["correction_A1"] else ""
        row["endorse_correction_A2"] = "Y" if row["correction_A2"] else ""
    return [write_csv(os.path.join(returned, os.path.basename(sheet)), rows)]


# -- the scripted crowd of issue 42's "Done when": two honest workers, an all-yes worker, a worker who never reads
# the passages and a copier, answering a requester-site batch (the rows `mturk rehearse` writes for it).
HONEST, ALL_YES, NEVER_READER, COPIER = "AHONEST1", "AALLYES", "ANEVERREADS", "ACOPIER"
HONEST2 = "AHONEST2"


def shown_paraphrases(run, plan):
    """(pages {token: [PageQuestion]}, {paraphrase: {phrases it is shown with}}) of everything a batch shows: its HIT
    pages, practice questions and qualification test."""
    pages = round1.hit_pages_of(run, plan)
    shown = {}
    extra = [round1.gold_question(plan["gold"][g]) for g in plan["practice"] + plan["qualification"]]
    for question in [q for page in pages.values() for q in page] + extra:
        if question.kind == "paraphrase":
            shown.setdefault(question.paraphrase.lower(), set()).add(question.phrase.lower())
    return pages, shown


def never_reader_fields(questions, shown):
    """A worker who reads no passage: no where the paraphrase is shown with another phrase in the batch, else yes."""
    return {f"answer_{n}": "no" if q.kind == "paraphrase" and len(shown[q.paraphrase.lower()]) > 1 else "yes"
            for n, q in enumerate(questions, start=1)}


def crowd_fields(run, batch, token, worker, copied):
    """The form `worker` (one of the names above) posts for the HIT with `token`: the honest workers answer as
    worker_fields does, the all-yes worker yes, the never-reader by never_reader_fields, and the copier hands in the
    first honest worker's answers slot by slot (`copied`: a dict the first honest worker's first form is kept in)."""
    plan, annotations = _plan(run, batch)
    gold = _gold_answers(plan)
    hit = next(h for h in plan["hits"] if h["token"] == token)
    honest = worker_fields(plan, annotations, hit, gold)
    if worker in (HONEST, HONEST2):
        if worker == HONEST and not copied:
            copied.update(honest)
        return honest
    if worker == ALL_YES:
        return {k: "yes" for k in honest}
    if worker == NEVER_READER:
        pages, shown = shown_paraphrases(run, plan)
        return never_reader_fields(pages[token], shown)
    assert copied, "the copier needs an honest worker's HIT before its own"
    return {k: copied.get(k, "yes") for k in honest}


def crowd_worker(workers):
    """workers[n]: who takes the n-th HIT (0-based, in the order the HITs come); later HITs go to the honest workers
    in turn."""
    return lambda n: workers[n] if n < len(workers) else (HONEST, HONEST2)[n % 2]


def crowd_results(run, batch, blank, out, workers, copied):
    """Fill the blank results file of `mturk rehearse` as the crowd answers it, HIT n (in the file's order) done by
    crowd_worker(workers)(n). Returns {HITId: worker}."""
    done, who = {}, crowd_worker(workers)

    def answer(n, row):
        fields = crowd_fields(run, batch, row["Input.row_key"], who(n), copied)
        row.update({"WorkerId": who(n), **{f"Answer.{k}": v for k, v in fields.items()}})
        done[row["HITId"]] = who(n)
    rewrite_results(blank, out, answer)
    return done


def crowd_sandbox(run, batches, workers):
    """The stand-in sandbox's worker pool (SandboxMTurk): the n-th HIT created (1-based, over every batch of
    `batches`, a list the test appends each batch name to before creating it) is offered to crowd_worker(workers)
    first, then to the honest workers (who take the assignments MTurk adds to a HIT later)."""
    copied, who = {}, crowd_worker(workers)

    def work(token, number):
        batch = next(b for b in reversed(batches) if any(h["token"] == token for h in _plan(run, b)[0]["hits"]))
        offered = dict.fromkeys((who(number - 1), HONEST, HONEST2))
        return [(worker, {**crowd_fields(run, batch, token, worker, copied), "comments": ""}) for worker in offered]
    return work


def assert_gold_is_never_a_real_question(run, plan):
    """No gold question (check, practice, qualification) of the batch's triplets, none with a real question's
    phrase and passage, and no paraphrase the batch shows with two phrases."""
    triplets = {iid.rsplit("/", 1)[0] for iid in plan["items"]}
    gold = [plan["gold"][g] for g in plan["checks"] + plan["practice"] + plan["qualification"]]
    assert gold and not {g["triplet_id"] for g in gold} & triplets
    pages, shown = shown_paraphrases(run, plan)
    real = {(q.phrase.lower(), p.text) for hit in plan["hits"] for slot, q in zip(hit["slots"], pages[hit["token"]])
            if not slot.startswith(round1.GOLD_PREFIX) for p in q.passages}
    assert not {(g["phrase"].lower(), g["passage1"]) for g in gold} & real
    assert all(len(phrases) == 1 for phrases in shown.values()), "a paraphrase shown with two phrases"
