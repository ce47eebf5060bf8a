"""MTurk round 1 (PiC Section 3.3, Appendix J): questions, HIT layout, gold checks and the decision rule.

Shared by the API path (`annotation.mturk.hits`, `annotation.mturk.review`) and the requester-UI path
(`annotation.mturk.manual`).
Each accepted `ExpertAnnotation` gives three ledger items verified by workers who never see the
expert's answers: `q1`/`q2` (type 1: can the expert's paraphrase replace p in passage 1/2?) and `q3`
(type 2: does p mean the same in both passages? — agreeing means answering as the expert did).
A batch's plan (which items and gold checks each HIT shows, in which slot) is stored in the batch's
ledger meta: by the requester-UI export when it writes the files, by the API path together with the
first HIT MTurk accepted (a batch MTurk refused leaves nothing). Every later step sees the same HITs,
and a retry drafts the same plan again (it is a pure function of the batch name, options and ledger).
"""
import dataclasses
import datetime
import hashlib
import json
import random

from annotation import rules, text
from annotation.mturk import hit_pages
from annotation.mturk.hit_pages import PARAPHRASE, SAME_MEANING, YES, PageQuestion, Passage
from picforge.ledger import ACCEPTED, CANCELLED, REJECTED, ROUND_MTURK, item_id, now
from picforge import schemas
from picforge.errors import InputError, NothingToDo

API_BATCH, MANUAL_BATCH = "mturk", "mturk-manual"
# annotation.verify2's batch kind: expert verification (round 2, and the pilot before round 1, whose items round 1
# never asks)
VERIFY2_KIND = "verify2"
ITEM_KINDS = ("q1", "q2", "q3")
GOLD_PREFIX = "gold:"
# What a plan keeps of each expert annotation: its HITs and decisions use this copy, so a corrected
# sheet ingested later cannot change what workers were shown or what their answers mean.
ANNOTATION_FIELDS = ("annotator", "q1", "q2", "same_meaning")
# Default gold checks: one per this many questions of a HIT (4 of PiC's 30, so one HIT judges a worker).
GOLD_SHARE = 7


@dataclasses.dataclass(frozen=True)
class Round1Settings:
    """How a round-1 batch is laid out and checked (stored with the batch; fixed once planned).

    Defaults follow PiC, Appendix J: workers get "5 practice samples", pass "an evaluation checkpoint
    including 6 questions" from the verified bank, then work "with sets of 30 questions". The pass mark,
    gold checks per HIT and assignments per HIT are not given there and stay options. Gold checks per HIT default
    to one per GOLD_SHARE questions, at most --min-worker-gold: on a 30-question page a worker is judged after one HIT.
    """
    questions_per_hit: int = 30
    gold_per_hit: int = None
    practice: int = 5
    qualification_questions: int = 6
    qualification_pass: int = 5
    assignments: int = 1
    max_gold_errors: int = 0
    min_worker_gold: int = 4
    min_worker_gold_accuracy: float = 0.8

    def __post_init__(self):
        if self.gold_per_hit is None:
            default = max(1, min(self.min_worker_gold, self.questions_per_hit // GOLD_SHARE))
            object.__setattr__(self, "gold_per_hit", min(default, self.questions_per_hit - 1))
        if not 0 <= self.gold_per_hit < self.questions_per_hit:
            raise InputError(f"--gold-per-hit {self.gold_per_hit} must be at least 0 and below "
                             f"--questions-per-hit {self.questions_per_hit}")
        if not 0 < self.qualification_pass <= self.qualification_questions:
            raise InputError(f"--qualification-pass {self.qualification_pass} must be between 1 and "
                             f"the {self.qualification_questions} qualification questions")
        if self.assignments < 1:
            raise InputError(f"--assignments {self.assignments} must be at least 1")


# -- gold bank -------------------------------------------------------------------------------------

def load_gold_bank(path):
    """The gold questions of a JSON-lines file, validated; errors name the file, line and fix."""
    from picforge.sheets import decode_text, read_bytes  # openpyxl: only when a bank is read
    bank, seen = [], {}
    for line_no, line in enumerate(decode_text(read_bytes(path), path).splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}: not valid JSON ({err.msg}); write one JSON object per line") from None
        problems = schemas.errors("gold_question", record)
        if problems:
            raise InputError(f"{where}: {problems[0]}; see schemas/gold_question.schema.json")
        if record["gold_id"] in seen:
            raise InputError(f"{where}: gold_id {record['gold_id']!r} already used on line "
                             f"{seen[record['gold_id']]}; give every gold question its own id")
        seen[record["gold_id"]] = line_no
        try:
            gold_question(record)
        except ValueError as err:
            raise InputError(f"{where}: {err}") from None
        bank.append(record)
    return bank


def _gold_passage(passage, phrase, field):
    span = hit_pages.find_phrase(passage, phrase)
    if span is None:
        raise ValueError(f"phrase {phrase!r} does not occur in {field}; fix the phrase or the passage")
    return Passage(passage, *span)


def gold_question(record):
    """The PageQuestion of a gold record (raises ValueError when its fields do not fit its kind)."""
    phrase, kind = record["phrase"], record["kind"]
    if kind == PARAPHRASE:
        if not (record.get("paraphrase") or "").strip():
            raise ValueError("a paraphrase question needs a non-empty 'paraphrase'")
        return PageQuestion(kind, phrase, (_gold_passage(record["passage1"], phrase, "passage1"),),
                            record["paraphrase"])
    if not (record.get("passage2") or "").strip():
        raise ValueError("a same_meaning question needs a non-empty 'passage2'")
    return PageQuestion(kind, phrase, (_gold_passage(record["passage1"], phrase, "passage1"),
                                       _gold_passage(record["passage2"], phrase, "passage2")))


def balanced_order(records, rng):
    """Gold ids alternating yes and no answers (each side shuffled), so any run of them is balanced."""
    sides = [sorted(r["gold_id"] for r in records if r["answer"] is answer) for answer in (True, False)]
    for side in sides:
        rng.shuffle(side)
    if rng.random() < 0.5:
        sides.reverse()
    order = []
    for n in range(max(map(len, sides))):
        order += [side[n] for side in sides if n < len(side)]
    return order


def gold_needed(settings, judging=False):
    """Gold questions a batch needs: the qualification test, practice and 2 checks (with `judging`, enough distinct
    checks to judge a worker: --min-worker-gold)."""
    checks = (max(2, settings.min_worker_gold) if judging else 2) if settings.gold_per_hit else 0
    return settings.qualification_questions + settings.practice + checks


def split_gold(bank, settings, batch_id, left_out=None, limit=None, at="--run RUN"):
    """Disjoint gold ids for the qualification test, the practice questions and the in-HIT checks, each part
    balanced between yes and no answers (a worker answering yes, or no, to everything fails the checks).
    `left_out` ({reason: count}) names the bank's questions this batch cannot use and `limit` the most triplets a
    batch could verify with this bank, for the error; `at` the run options the commands it names carry."""
    need = gold_needed(settings)
    if len(bank) < need:
        why = "".join(f", {n} left out ({reason})" for reason, n in sorted((left_out or {}).items()))
        fewer = (f"--limit {limit} (verify {limit} triplets now; a next batch can draw gold from them)" if limit
                 else f"settled questions of other triplets: a pilot (`picforge annotate export verify2 {at} "
                      f"--verifiers V1,V2 --pilot N`), then `picforge annotate mturk gold {at} --out GOLD.jsonl`, "
                      "with `--from-release RELEASE` for a previous run's release")
        raise InputError(f"the gold bank has {len(bank)} questions this batch can use{why}, but it needs at least "
                         f"{need} ({settings.qualification_questions} for the qualification test, {settings.practice} "
                         f"for practice and 2+ for checks); use {fewer}")
    answers = {record["answer"] for record in bank}
    if settings.gold_per_hit and answers != {True, False}:
        missing = "no" if True in answers else "yes"
        raise InputError(f"the gold bank has no question whose answer is {missing}: a worker answering "
                         f"{'yes' if missing == 'no' else 'no'} to everything would pass every check; add "
                         f"verified questions answered {missing} to the gold file")
    ids = balanced_order(bank, random.Random(f"gold:{batch_id}"))
    cut = settings.qualification_questions + settings.practice
    qualification, practice, checks = ids[:settings.qualification_questions], ids[settings.qualification_questions:cut], \
        ids[cut:]
    by_id = {record["gold_id"]: record["answer"] for record in bank}
    if settings.gold_per_hit and len({by_id[g] for g in checks}) < 2:  # rebalance: give the checks one of each
        spare = next(g for g in qualification + practice if by_id[g] != by_id[checks[0]])
        part = qualification if spare in qualification else practice
        part[part.index(spare)], checks[0] = checks[0], spare
    return {"qualification": qualification, "practice": practice, "checks": checks}


# -- triplet questions -----------------------------------------------------------------------------

def page_passage(page, phrase, where):
    """The page's passage with the span of `phrase` that the Triplet points at."""
    try:
        return Passage(page["passage"], *text.locate_phrase(page, phrase))
    except ValueError as err:
        raise InputError(f"{where}: {err}; re-run stage select of `picforge mine` or leave this triplet out") from None


def triplet_question(triplet, annotation, kind, where):
    """The question a worker sees for item `kind` (q1, q2, q3) of an annotated triplet."""
    phrase = triplet["phrase"]
    if kind == "q3":
        return PageQuestion(SAME_MEANING, phrase, (page_passage(triplet["page1"], phrase, where),
                                                   page_passage(triplet["page2"], phrase, where)))
    page = triplet["page1"] if kind == "q1" else triplet["page2"]
    return PageQuestion(PARAPHRASE, phrase, (page_passage(page, phrase, where),), annotation[kind])


# -- batch plan ------------------------------------------------------------------------------------

def request_token(batch_id, slots):
    """The UniqueRequestToken (≤ 64 characters) of the HIT showing `slots` in batch `batch_id`."""
    digest = hashlib.sha256("\n".join([batch_id, *slots]).encode("utf-8")).hexdigest()
    return "picforge-" + digest[:55]


def layout_hits(batch_id, item_ids, check_ids, settings):
    """Slots of every HIT: items shuffled (seeded by the batch id), gold checks at seeded positions."""
    rng = random.Random(f"layout:{batch_id}")
    items = list(item_ids)
    rng.shuffle(items)
    per_hit = settings.questions_per_hit - settings.gold_per_hit
    checks = [GOLD_PREFIX + gold_id for gold_id in check_ids]  # in balanced order: consecutive HITs alternate
    hits = []
    for number, start in enumerate(range(0, len(items), per_hit)):
        slots = items[start:start + per_hit]
        for k in range(settings.gold_per_hit):
            slots.insert(rng.randrange(len(slots) + 1), checks[(number * settings.gold_per_hit + k) % len(checks)])
        hits.append({"token": request_token(batch_id, slots), "slots": slots})
    return hits


def unverified_annotations(q, limit=None):
    """[(annotation, kinds)] of the accepted expert annotations of triplets not marked stale whose items `kinds` (of
    q1, q2, q3) are in no round-1 batch and no expert pilot (`export verify2 --pilot`): never asked, released by
    `annotate cancel-batch`, or asked again after every assignment was rejected (`release_stranded`); in triplet id
    order."""
    taken = {iid for kind in (API_BATCH, MANUAL_BATCH, VERIFY2_KIND) for iid in q.memberships(kind)}
    stale = q.stale()
    chosen = []
    for annotation in q.expert_annotations():
        kinds = [k for k in ITEM_KINDS if item_id(annotation["triplet_id"], k) not in taken]
        if kinds and annotation["triplet_id"] not in stale:
            chosen.append((annotation, kinds))
    return chosen if limit is None else chosen[:limit]


def plan_batch(ledger, batch_id, kind, gold_path, settings, extra_meta, limit=None, at="--run RUN"):
    """(plan, is_new): the batch's stored plan, or a new one drafted from the ledger and not yet stored.

    A batch that exists must have been planned with the same kind, settings and extra meta, and not be
    cancelled. Record a new plan (`record_plan`) only once it is accepted: its cost, and for the API path
    MTurk's answer to its first HIT.
    """
    with ledger.read() as q:
        found = q.batch(batch_id)
        if found is not None:
            check_not_cancelled(found)
            check_same_plan(found, kind, {"settings": dataclasses.asdict(settings), **extra_meta})
            return found["meta"], False
        if gold_path is None:
            raise InputError(f"batch {batch_id!r} is new: pass --gold GOLD.jsonl (the verified question bank)")
        bank = {record["gold_id"]: record for record in load_gold_bank(gold_path)}
        annotations = unverified_annotations(q, limit)
    if not annotations:
        raise NothingToDo("no accepted expert annotation is waiting for MTurk verification; run "
                         "`picforge annotate ingest expert` first (or every one is already in a batch)")
    from annotation.mturk.gold import gold_for_batch, largest_limit
    verified = [a for a, _ in annotations]
    usable, left_out = gold_for_batch(bank.values(), {a["triplet_id"]: a for a in verified})
    need = gold_needed(settings, judging=True)
    limit = largest_limit(bank.values(), verified, need) if len(usable) < need and left_out else None
    gold = split_gold(usable, settings, batch_id, left_out, limit, at)
    used = gold["qualification"] + gold["practice"] + gold["checks"]
    item_ids = [item_id(a["triplet_id"], kind_) for a, kinds in annotations for kind_ in kinds]
    plan = {**extra_meta, "kind": kind, "settings": dataclasses.asdict(settings),
            "gold": {gold_id: bank[gold_id] for gold_id in used}, **gold, "items": item_ids,
            "annotations": {a["triplet_id"]: {k: a[k] for k in ANNOTATION_FIELDS} for a, _ in annotations},
            "hits": layout_hits(batch_id, item_ids, gold["checks"], settings)}
    return plan, True


def judging_capacity(hits, settings, checks):
    """(HITs a worker must complete to be judged, workers the batch can judge) for `hits` HITs drawing on `checks`
    distinct gold checks; (0, None) when the plan has no gold checks (nobody is judged, nobody held)."""
    if not settings.gold_per_hit:
        return 0, None
    need = -(-settings.min_worker_gold // settings.gold_per_hit)
    if need > hits or min(checks, hits * settings.gold_per_hit) < settings.min_worker_gold:
        return need, 0
    return need, hits * settings.assignments // need


def settings_that_judge(items, settings, checks):
    """Option changes (text) with which a batch of `items` real questions and `checks` gold checks judges workers:
    the nearest --gold-per-hit, --min-worker-gold and --questions-per-hit that do, else a bigger gold bank."""
    def judges(changed):
        try:
            tried = dataclasses.replace(settings, **changed)
        except InputError:
            return False
        hits = -(-items // (tried.questions_per_hit - tried.gold_per_hit))
        return bool(judging_capacity(hits, tried, checks)[1])
    candidates = [("gold_per_hit", range(settings.gold_per_hit + 1, settings.questions_per_hit)),
                  ("min_worker_gold", range(settings.min_worker_gold - 1, 0, -1)),
                  ("questions_per_hit", range(settings.questions_per_hit - 1, settings.gold_per_hit, -1))]
    fixes = [f"--{name.replace('_', '-')} {next(v for v in values if judges({name: v}))}"
             for name, values in candidates if any(judges({name: v}) for v in values)]
    return fixes or [f"a gold bank with {settings.min_worker_gold - checks} more question(s) for the checks"]


def judging_line(plan, new):
    """What a plan's judging looks like (printed before anything is written); InputError for a new plan that can
    judge no worker, naming settings that would."""
    settings, hits, checks = settings_of(plan), len(plan["hits"]), len(plan["checks"])
    need, judged = judging_capacity(hits, settings, checks)
    if judged is None:
        return "no gold checks (--gold-per-hit 0): no worker is judged or held; every complete assignment counts"
    line = (f"judging: a worker is judged after {settings.min_worker_gold} distinct gold checks, i.e. {need} HIT(s) at "
            f"{settings.gold_per_hit} per HIT (their record spans every batch of the run); these {hits} HIT(s) x "
            f"{settings.assignments} assignment(s) can judge up to {judged} worker(s)")
    if judged == 0 and new:
        real = len(plan["items"])
        raise InputError(f"{line}: nobody could be judged, so every assignment would stay held; use "
                         f"{' or '.join(settings_that_judge(real, settings, checks))}")
    return line


def record_plan(tx, batch_id, plan):
    """Record a new MTurk batch, its plan and (round 1) its items in the ledger transaction `tx`."""
    round_ = ROUND_MTURK if plan["kind"] in (API_BATCH, MANUAL_BATCH) else None
    tx.add_batch(batch_id, plan["kind"], round=round_, meta=plan)
    tx.add_items(batch_id, [tuple(iid.rsplit("/", 1)) for iid in plan.get("items", ())])


def store_plan(ledger, batch_id, plan):
    """Record a new batch, its items and its plan in one transaction."""
    with ledger.transaction() as tx:
        record_plan(tx, batch_id, plan)


def check_not_cancelled(found):
    """Refuse to plan or resume a batch taken back by `annotate cancel-batch`."""
    if found["status"] == CANCELLED:
        raise InputError(f"batch {found['batch_id']!r} was cancelled (its items went back to waiting); "
                         "start a new --batch")


def check_same_plan(found, kind, wanted):
    """Refuse an existing batch of another kind, or planned with other `wanted` meta (the options fixing it)."""
    batch_id, meta = found["batch_id"], found["meta"]
    if found["kind"] != kind:
        raise InputError(f"batch {batch_id!r} is a {found['kind']} batch, not {kind}; use another --batch name")
    changed = sorted(key for key, value in wanted.items() if meta.get(key) != value)
    if changed:
        raise InputError(f"batch {batch_id!r} was planned with other {', '.join(changed)} "
                         f"(stored: {json.dumps({k: meta.get(k) for k in changed}, sort_keys=True)}); "
                         "repeat the original options or start a new --batch")


def stored_plan(ledger, batch_id, kinds=(API_BATCH, MANUAL_BATCH)):
    """The plan (meta) of an existing batch of one of `kinds`, or a clear error."""
    with ledger.read() as q:
        found = q.batch(batch_id)
    if found is None or found["kind"] not in kinds:
        raise InputError(f"no batch {batch_id!r} of kind {' or '.join(kinds)} in the ledger; "
                         "check --batch and --run/--ledger")
    return found["meta"]


def settings_of(plan):
    return Round1Settings(**plan["settings"])


@dataclasses.dataclass(frozen=True)
class QualificationTest:
    """A plan's qualification test: MTurk QuestionForm and AnswerKey XML, named after its content so the same
    test is found again instead of re-created."""
    name: str
    description: str
    test_xml: str
    answer_key: str
    seconds: int = 20 * 60


def qualification_test(plan):
    """The qualification test of a plan's gold questions (pass mark from its settings)."""
    gold, questions, passing = plan["gold"], plan["qualification"], settings_of(plan).qualification_pass
    test_xml = hit_pages.qualification_test_xml([(g, gold_question(gold[g])) for g in questions], passing)
    return QualificationTest(
        name="PiC phrase verification test " + hashlib.sha256(test_xml.encode("utf-8")).hexdigest()[:12],
        description=f"Answer at least {passing} of {len(questions)} questions about phrases in Wikipedia passages "
                    "correctly.",
        test_xml=test_xml, answer_key=hit_pages.answer_key_xml([(g, gold[g]["answer"]) for g in questions]))


def hit_pages_of(run_dir, plan):
    """{token: [PageQuestion per slot]} for every HIT of the plan (no expert answer in them); refused when the
    plan's gold questions differ in length from its real ones (`gold.refuse_telltale_gold`)."""
    from annotation.mturk.gold import refuse_telltale_gold
    from annotation.triplets import load_triplets  # Beam's FileSystems: imported only when pages are made
    annotations = plan["annotations"]
    slot_ids = {slot for hit in plan["hits"] for slot in hit["slots"] if not slot.startswith(GOLD_PREFIX)}
    triplets = load_triplets(run_dir, {slot.rsplit("/", 1)[0] for slot in slot_ids})
    pages = {}
    for hit in plan["hits"]:
        questions = []
        for slot in hit["slots"]:
            if slot.startswith(GOLD_PREFIX):
                questions.append(gold_question(plan["gold"][slot[len(GOLD_PREFIX):]]))
                continue
            triplet_id, kind = slot.rsplit("/", 1)
            questions.append(triplet_question(triplets[triplet_id], annotations[triplet_id], kind,
                                              f"triplet {triplet_id}"))
        pages[hit["token"]] = questions
    real = [q for hit in plan["hits"] for slot, q in zip(hit["slots"], pages[hit["token"]])
            if not slot.startswith(GOLD_PREFIX)]
    refuse_telltale_gold([gold_question(g) for g in plan["gold"].values()], real, "the gold bank (--gold)")
    return pages


def practice_of(plan):
    """[(PageQuestion, answer, explanation)] of the batch's practice questions."""
    return [(gold_question(plan["gold"][g]), plan["gold"][g]["answer"], plan["gold"][g].get("explanation", ""))
            for g in plan["practice"]]


# -- answers, checks and decisions -----------------------------------------------------------------

def answers_by_field(fields, slots):
    """Ledger answers {field: (item_id or None, value)} of one assignment's posted fields.

    Raises ValueError naming the field for an answer that is not yes/no or a slot the HIT lacks.
    """
    found = {}
    for slot, answer in hit_pages.slot_answers(fields).items():
        if not 1 <= slot <= len(slots):
            raise ValueError(f"field answer_{slot}: the HIT has only {len(slots)} questions")
        target = slots[slot - 1]
        found[hit_pages.ANSWER_FIELD.format(slot=slot)] = (
            None if target.startswith(GOLD_PREFIX) else target, hit_pages.YES if answer else hit_pages.NO)
    comments = (fields.get(hit_pages.COMMENTS_FIELD) or "").strip()
    if comments:
        found[hit_pages.COMMENTS_FIELD] = (None, comments)
    return found


def gold_answered_right(slot, value, gold):
    """True when `value` (yes/no as stored) is the known answer of the gold check in `slot`."""
    return (value == YES) == gold[slot[len(GOLD_PREFIX):]]["answer"]


def check_assignment(answers, slots, gold, settings):
    """(valid, reason) for one assignment: every question answered, gold checks within the allowed errors.

    `answers` is {field: value} as stored in the ledger.
    """
    unanswered = [n for n in range(1, len(slots) + 1) if hit_pages.ANSWER_FIELD.format(slot=n) not in answers]
    if len(unanswered) == len(slots):
        return False, "The form came back without usable answers."
    if unanswered:
        return False, f"Unanswered question(s): {', '.join(map(str, unanswered))}."
    wrong = [n for n, slot in enumerate(slots, start=1) if slot.startswith(GOLD_PREFIX)
             and not gold_answered_right(slot, answers[hit_pages.ANSWER_FIELD.format(slot=n)], gold)]
    checks = sum(slot.startswith(GOLD_PREFIX) for slot in slots)
    if len(wrong) > settings.max_gold_errors:
        return False, (f"{len(wrong)} of the {checks} check question(s) with known answers were answered wrongly "
                       f"(question {', '.join(map(str, wrong))}); please read the instructions and passages "
                       "carefully.")
    return True, f"Thank you: {checks - len(wrong)} of {checks} check question(s) right."


def decide(votes):
    """Round-1 decision from the valid votes (list of bools, True = agrees with the expert).

    Accepted when more than half of the valid assignments agree; with one assignment per question (as
    in PiC, where each annotation was verified once) that worker's verdict decides. Ties are rejected,
    which sends the item to the round-2 expert verifiers.
    """
    agree = sum(votes)
    decision = ACCEPTED if agree * 2 > len(votes) else REJECTED
    return decision, f"{agree} of {len(votes)} valid assignment(s) agree with the expert"


SUBMITTED_ASSIGNMENT, REJECTED_ASSIGNMENT = "Submitted", "Rejected"


def answers_by_assignment(q, batch_id):
    found = {}
    for answer in q.answers(batch_id=batch_id):
        found.setdefault(answer["assignment_id"], {})[answer["field"]] = (answer["item_id"], answer["value"])
    return found


def run_gold_records(q):
    """[(assignments, answers by assignment, slots by HIT, gold)] of every round-1 batch of the run not cancelled."""
    records = []
    for batch in (b for kind in (API_BATCH, MANUAL_BATCH) for b in q.batches(kind=kind)):
        if batch["status"] == CANCELLED:
            continue
        slots = {hit["hit_id"]: hit["meta"].get("slots", ()) for hit in q.hits(batch["batch_id"])}
        records.append((q.assignments(batch_id=batch["batch_id"]), answers_by_assignment(q, batch["batch_id"]), slots,
                        batch["meta"].get("gold", {})))
    return records


def worker_gold_scores(records):
    """{worker: (right, scored)} over the distinct gold questions each worker answered in every batch of `records`
    (`run_gold_records`): a gold question counts once per worker, the first time (in submission order), so one seen
    again cannot be learnt and repeated."""
    scored, ordered = {}, []
    for assignments, answers, slots, gold in records:
        ordered += [(a, answers, slots, gold) for a in assignments]
    for assignment, answers, slots, gold in sorted(ordered, key=lambda r: (r[0]["submitted_at"] or "",
                                                                           r[0]["assignment_id"])):
        given = answers.get(assignment["assignment_id"], {})
        seen = scored.setdefault(assignment["worker_id"], {})
        for n, slot in enumerate(slots.get(assignment["hit_id"], ()), start=1):
            field = hit_pages.ANSWER_FIELD.format(slot=n)
            if slot.startswith(GOLD_PREFIX) and field in given and slot not in seen:
                seen[slot] = gold_answered_right(slot, given[field][1], gold)
    return {worker: (sum(seen.values()), len(seen)) for worker, seen in scored.items()}


def worker_held(score, settings):
    """Why a worker's assignments wait ('' when their gold record is long enough to judge): fewer distinct gold
    questions answered than --min-worker-gold, so a worker answering at random could not be told from a careful one."""
    right, scored = score
    if scored >= settings.min_worker_gold:
        return ""
    return (f"held: {scored} distinct check question(s) answered so far, {settings.min_worker_gold} needed to judge "
            "the worker's record")


def worker_failure(score, settings):
    """Why a worker's gold record fails review ('' when it passes or is too short to judge)."""
    right, scored = score
    if scored < settings.min_worker_gold or right >= settings.min_worker_gold_accuracy * scored:
        return ""
    return (f"Across your assignments you answered {right} of {scored} distinct check questions with known answers "
            f"right, below the {settings.min_worker_gold_accuracy:.0%} this batch requires.")


# Held has an end: review decides a held assignment from one day before MTurk auto-approves it (its AutoApprovalTime,
# else its submit time plus the HIT's AutoApprovalDelay: the plan's for API batches, the requester site's default of
# 3 days for uploaded ones). See docs/annotation.md, "Held has an end".
DECIDE_BEFORE_AUTO_APPROVAL = datetime.timedelta(days=1)
REQUESTER_SITE_AUTO_APPROVAL = datetime.timedelta(days=3)
# Time zones the requester site writes in its results files (e.g. "Fri May 01 10:09:00 PDT 2026").
SITE_ZONES = {"UTC": 0, "GMT": 0, "PST": -8, "PDT": -7}


def mturk_time(text):
    """An aware datetime of an MTurk timestamp (ISO 8601 from the API, or the requester site's results format), or
    None when it is neither."""
    if not text:
        return None
    try:
        found = datetime.datetime.fromisoformat(text)
    except ValueError:
        parts = text.split()
        if len(parts) != 6 or parts[4] not in SITE_ZONES:
            return None
        try:
            found = datetime.datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y")
        except ValueError:
            return None
        return found.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=SITE_ZONES[parts[4]])))
    return found if found.tzinfo else found.replace(tzinfo=datetime.timezone.utc)


def auto_approval_at(assignment, plan):
    """When MTurk approves a submitted assignment nobody reviewed (None when neither time is known): MTurk's own
    AutoApprovalTime, else its SubmitTime plus the HIT's AutoApprovalDelayInSeconds as MTurk gave it (the results
    file's column), else the plan's delay, else the requester site's default."""
    recorded = mturk_time(assignment["meta"].get("AutoApprovalTime"))
    if recorded is not None:
        return recorded
    submitted = mturk_time(assignment["submitted_at"])
    given = str(assignment["meta"].get("AutoApprovalDelayInSeconds", "")).strip()
    delay = (datetime.timedelta(seconds=int(given)) if given.isdigit() else
             datetime.timedelta(seconds=plan["hit_type"]["auto_approval_delay"]) if "hit_type" in plan
             else REQUESTER_SITE_AUTO_APPROVAL)
    return submitted + delay if submitted else None


def held_deadline(verdict, plan, score, settings, clock):
    """A held verdict with its auto-approval and decide-by dates; from the decide-by date (`clock` is now) decided on
    the worker's record so far: rejected when under --min-worker-gold-accuracy of the checks answered, else paid
    (MTurk would pay it anyway) with `valid` False, so its answers never vote and its items are asked again."""
    approves = auto_approval_at(verdict, plan)
    if approves is None:
        return verdict
    decide_by = approves - DECIDE_BEFORE_AUTO_APPROVAL
    verdict = {**verdict, "auto_approval": approves.isoformat(), "decide_by": decide_by.isoformat()}
    if clock < decide_by:
        return verdict
    right, scored = score
    if scored and right < settings.min_worker_gold_accuracy * scored:
        return {**verdict, "held": False, "reason": f"Your assignments could not be judged before MTurk's approval "
                f"date and you answered {right} of {scored} check questions right, below the "
                f"{settings.min_worker_gold_accuracy:.0%} this batch requires."}
    return {**verdict, "held": False, "pay_unjudged": True,
            "reason": "Thank you: paid at MTurk's approval date; too few check questions to count these answers."}


def assignment_verdicts(ledger, batch_id, plan, clock=None):
    """`verdicts_in` over a read of the ledger."""
    with ledger.read() as q:
        return verdicts_in(q, batch_id, plan, clock)


def verdicts_in(q, batch_id, plan, clock=None):
    """Every saved assignment of the batch with `valid` and `reason` from `check_assignment`, and from the
    worker's gold record over all their assignments in every batch of the run (an all-yes, all-no or random worker
    fails it); held ones carry their dates and are decided from their decide-by date (`held_deadline`)."""
    settings, clock = settings_of(plan), clock or datetime.datetime.now(datetime.timezone.utc)
    slots = {hit["hit_id"]: hit["meta"]["slots"] for hit in q.hits(batch_id)}
    answers = answers_by_assignment(q, batch_id)
    assignments = q.assignments(batch_id=batch_id)
    scores = worker_gold_scores(run_gold_records(q))
    failures = {worker: worker_failure(score, settings) for worker, score in scores.items()}
    verdicts = []
    for assignment in assignments:
        given = {field: value for field, (_, value) in answers.get(assignment["assignment_id"], {}).items()}
        valid, reason = check_assignment(given, slots[assignment["hit_id"]], plan["gold"], settings)
        score = scores.get(assignment["worker_id"], (0, 0))
        held = valid and settings.gold_per_hit and worker_held(score, settings)
        if valid and failures.get(assignment["worker_id"]):  # an assignment failing its own checks says why
            valid, reason = False, failures[assignment["worker_id"]]
        elif held:
            valid, reason = False, held
        verdict = {**assignment, "valid": valid, "reason": reason, "held": bool(held),
                   "gold_record_failed": failures.get(assignment["worker_id"], ""),
                   "answers": answers.get(assignment["assignment_id"], {})}
        if held and assignment["status"] == SUBMITTED_ASSIGNMENT:
            verdict = held_deadline(verdict, plan, score, settings, clock)
        verdicts.append(verdict)
    return verdicts


def workers_to_block(verdicts):
    """{worker: reason} of the workers whose gold record failed review (spammers: all-yes, all-no, random)."""
    return {v["worker_id"]: v["gold_record_failed"] for v in verdicts if v.get("gold_record_failed")}


def record_review(ledger, verdict, status, decided=None):
    """Store an assignment's status with the check result, the reason given to the worker and the review's verdict
    (`decided`: Approved or Rejected, default `status`; a requester-UI batch stays Submitted until its file is
    uploaded and the results downloaded again)."""
    with ledger.transaction() as tx:
        tx.record_assignment(verdict["assignment_id"], verdict["batch_id"], verdict["worker_id"], status,
                             hit_id=verdict["hit_id"], submitted_at=verdict["submitted_at"],
                             meta={**verdict["meta"], "valid": verdict["valid"], "review": verdict["reason"],
                                   "decided": decided or status})


def hit_capacity(hit, settings):
    """MaxAssignments of a round-1 HIT: the planned assignments plus those asked again (`ask_again`)."""
    return settings.assignments + hit["meta"].get("additional_assignments", 0)


def counted_verdicts(verdicts, hits, settings):
    """{hit_id: verdicts} keeping each HIT's first MaxAssignments (by submit time): a HIT takes no more."""
    by_hit = {}
    for verdict in sorted(verdicts, key=lambda v: (v["submitted_at"] or "", v["assignment_id"])):
        found = by_hit.setdefault(verdict["hit_id"], [])
        if len(found) < hit_capacity(hits[verdict["hit_id"]], settings):
            found.append(verdict)
    return by_hit


def stranded_hits(q, batch_id, plan):
    """{hit_id: item ids} of the batch's HITs that have all their assignments, each reviewed and none valid, whose
    items no decision or release settled: nobody will answer them unless they are asked again."""
    settings = settings_of(plan)
    decided, released = q.decision_map(ROUND_MTURK), {r["item_id"] for r in q.releases(batch_id)}
    by_hit = {}
    for assignment in q.assignments(batch_id=batch_id):
        by_hit.setdefault(assignment["hit_id"], []).append(assignment)
    stranded = {}
    for hit in q.hits(batch_id):
        done = by_hit.get(hit["hit_id"], [])
        reviewed = all(a["status"] != SUBMITTED_ASSIGNMENT or "decided" in a["meta"] for a in done)
        if len(done) < hit_capacity(hit, settings) or not reviewed or any(a["meta"].get("valid") for a in done):
            continue
        items = [i for i in q.hit_items(hit["hit_id"]) if i not in decided and i not in released]
        if items:
            stranded[hit["hit_id"]] = items
    return stranded


def release_stranded(ledger, batch_id, plan):
    """Hand the items of a requester-UI batch's stranded HITs back, so the next `mturk export` asks them again;
    returns how many were released now."""
    with ledger.transaction() as tx:
        return sum(tx.release_items(batch_id, items, f"asked again: no assignment of HIT {hit_id} could count")
                   for hit_id, items in stranded_hits(tx, batch_id, plan).items())


def record_decisions(ledger, batch_id, plan, final=False, redecide_by=None):
    """Write the round-1 decision of every item whose HIT has all its assignments, none held (or any, with `final`).

    Only valid assignments vote (all questions answered, gold checks passed, not rejected). An item decided before
    keeps its decision: assignments that arrived since are counted as `late` and change nothing, unless
    `redecide_by` (who asked) is given, which decides again and records who, when and the previous decision.
    Returns {accepted, rejected, undecided, late}; undecided items wait for more (valid) assignments.
    """
    settings = settings_of(plan)
    verdicts = assignment_verdicts(ledger, batch_id, plan)
    annotations = plan["annotations"]
    with ledger.read() as q:
        released = {r["item_id"] for r in q.releases(batch_id)}
        item_ids = [item["item_id"] for item in q.items(batch_id=batch_id) if item["item_id"] not in released]
        decided = {iid: d for iid, d in q.decision_map(ROUND_MTURK).items() if iid in set(item_ids)}
        hits = {hit["hit_id"]: hit for hit in q.hits(batch_id)}
    votes = {}
    for hit_id, hit_verdicts in counted_verdicts(verdicts, hits, settings).items():
        complete = len(hit_verdicts) >= hit_capacity(hits[hit_id], settings) and not any(
            v["held"] and v["status"] == SUBMITTED_ASSIGNMENT for v in hit_verdicts)
        if not complete and not final:
            continue
        for verdict in hit_verdicts:
            if not verdict["valid"] or verdict["status"] == REJECTED_ASSIGNMENT:
                continue
            for field, (iid, value) in sorted(verdict["answers"].items()):
                if iid is None or field == hit_pages.COMMENTS_FIELD or iid in released:
                    continue
                triplet_id, kind = iid.rsplit("/", 1)
                votes.setdefault(iid, []).append({
                    "worker": verdict["worker_id"], "assignment": verdict["assignment_id"], "answer": value,
                    "agrees": rules.endorses(kind, text.yes_no(value), annotations[triplet_id]["same_meaning"])})
    counts = {ACCEPTED: 0, REJECTED: 0, "undecided": len(set(item_ids) - set(votes) - set(decided)), "late": set()}
    with ledger.transaction() as tx:
        for iid, item_votes in sorted(votes.items()):
            decision, reason = decide([vote["agrees"] for vote in item_votes])
            found, detail = decided.get(iid), {"votes": item_votes}
            if found is not None and found["detail"].get("votes") != item_votes:
                if redecide_by is None:
                    known = {vote["assignment"] for vote in found["detail"].get("votes", [])}
                    counts["late"] |= {vote["assignment"] for vote in item_votes} - known
                    counts[found["decision"]] += 1
                    continue
                detail["redecided"] = {"by": redecide_by, "at": now(), "previous": found["decision"],
                                       "previous_reason": found["reason"]}
            elif found is not None:
                detail = found["detail"]
            tx.record_decision(iid, ROUND_MTURK, decision, reason=reason, decided_by=f"mturk:{batch_id}", detail=detail)
            counts[decision] += 1
        for iid in set(decided) - set(votes):
            counts[decided[iid]["decision"]] += 1
    counts["late"] = len(counts["late"])
    return counts