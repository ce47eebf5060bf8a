"""Issue 42's "Done when", on the 103-page sample: a round on the tool's default export settings with a scripted crowd
(two honest workers, one all-yes worker, one who never reads the passages, one copier) on the requester-site path,
each step the one a previous `next:` line named, ends with every item decided or listed with a reason, the honest
workers approved, the other three rejected or flagged, no gold question that is also a real question of its batch;
re-running any step changes nothing."""
import contextlib
import glob
import io
import os
import re
import shutil

import pytest

from annotation.mturk import client as mturk_client, round1
from picforge.ledger import ROUND_MTURK, Ledger
from picforge import cli
from tests.annotation.conftest import read_csv
from tests.walkthrough import annotators
from tests.walkthrough.mturk_service import SandboxMTurk

RUN, RETURNED, GOLD = "run", "returned", "gold.jsonl"
# Who takes the HITs of each round-1 batch, in the order of its results file (later HITs: the honest workers).
CROWDS = [(annotators.HONEST, annotators.ALL_YES, annotators.NEVER_READER, annotators.COPIER),
          (annotators.HONEST2, annotators.HONEST)]
HONEST_WORKERS = {annotators.HONEST, annotators.HONEST2}


class Shell:
    """Runs `picforge …` lines in this process and keeps what each printed (stdout and stderr, where `next:` goes)."""

    def __init__(self):
        self.ran, self.hints, self.last = [], [], []

    def __call__(self, line, expect=0):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                code = cli.main(line.split()[1:])
            except SystemExit as exit_:
                code = exit_.code
        text = self.ran_output = out.getvalue()
        print(f"$ {line}\n{text}")
        assert expect is None or (code == 0) == (expect == 0), f"`{line}` exited {code}:\n{text}"
        self.code = code
        self.ran.append(line)
        self.last = re.findall(r"^next: (picforge [^\n(]*?)\s*(?:\(|$)", text, re.M)
        self.hints += self.last
        return text

    def named(self, line):
        """Whether an earlier `next:` line named this command's verb (its words before the first option)."""
        verb = line.split(" --", 1)[0]
        return any(hint.split(" --", 1)[0] == verb for hint in self.hints)


def ledger_dump(run):
    ledger = Ledger.for_run(run)
    try:
        with ledger.read() as q:
            return q.dump()
    finally:
        ledger.dispose()


def assert_unchanged(before, after, line):
    """The ledger after re-running `line` is the ledger before, table by table (the first change named)."""
    for table, rows in before.items():
        assert after[table] == rows, (line, table, sorted(set(after[table]) ^ set(rows), key=repr)[:4])


def round1_batch(sh, batch, crowd, export_line, copied):
    """Export a batch on default settings, let the crowd answer it, ingest and review; returns (review rows, review
    output). Every step but the export is re-run and must change nothing."""
    if sh(export_line, expect=None) and sh.code:   # the bank is short for this batch: the limit the error names
        export_line += named_limit(sh)
        sh(export_line)
    plan, _ = annotators._plan(RUN, batch)
    annotators.assert_gold_is_never_a_real_question(RUN, plan)
    blank = f"{RETURNED}/{batch}_blank.csv"
    sh(f"picforge annotate mturk rehearse --run {RUN} --batch {batch} --out {blank}")
    results = f"{RETURNED}/Batch_{batch}_batch_results.csv"
    annotators.crowd_results(RUN, batch, blank, results, crowd, copied)
    ingest = f"picforge annotate mturk ingest --run {RUN} --results {results}"
    assert sh.named(ingest), sh.hints[-3:]
    sh(ingest)
    review = f"picforge annotate mturk review --run {RUN} --batch {batch} --out {RETURNED}/{batch}-review.csv --block"
    assert sh.named(review), sh.hints[-3:]
    out = sh(review)
    before = ledger_dump(RUN)
    files = {path: open(path, "rb").read() for path in glob.glob(f"{RUN}/mturk/{batch}/*") + [blank]}
    for line in (export_line, f"picforge annotate mturk rehearse --run {RUN} --batch {batch} --out {blank}", ingest,
                 review):   # re-running any step changes nothing
        sh(line)
        assert_unchanged(before, ledger_dump(RUN), line)
    assert files == {path: open(path, "rb").read() for path in files}
    return read_csv(f"{RETURNED}/{batch}-review.csv"), out


def prepared(tmp_path, monkeypatch, mined, release):
    """The run with every expert annotation ingested and the gold bank the tool's hints lead to (`release`, a previous
    run's), in `tmp_path`; returns the Shell."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PICFORGE_LEDGER", raising=False)
    shutil.copytree(mined, RUN)
    sh = Shell()
    sh(f"picforge annotate export expert --run {RUN} --annotators ann,bo --per-annotator 22")
    annotators.fill_expert_sheets(RUN, RETURNED, draft=False)
    sh(f"picforge annotate ingest expert --run {RUN} --sheets {' '.join(sorted(glob.glob(f'{RETURNED}/expert-*.csv')))} "
       "--no-grammar")
    gold_from_release(sh, release)
    return sh


def gold_from_release(sh, release):
    """`mturk gold` refuses with nothing settled and names --from-release; the bank it then writes; re-running it
    writes the same."""
    refused = sh(f"picforge annotate mturk gold --run {RUN} --out {GOLD}", expect=2)
    assert "--from-release PREVIOUS_RELEASE" in refused and not os.path.exists(GOLD)
    line = f"picforge annotate mturk gold --run {RUN} --from-release {release} --out {GOLD}"
    sh(line)
    with open(GOLD, "rb") as fh:
        written = fh.read()
    sh(line)
    with open(GOLD, "rb") as fh:
        assert fh.read() == written


@pytest.mark.slow
def test_a_scripted_crowd_round_on_default_settings_ends_decided(tmp_path, monkeypatch, mined_103, release_103):
    sh = prepared(tmp_path, monkeypatch, mined_103, release_103)

    export = f"picforge annotate mturk export --run {RUN} --batch r1 --gold {GOLD}"
    reviews, outputs, batch_no, copied = [], [], 0, {}
    while export:
        batch_no += 1
        batch = f"r{batch_no}"
        crowd = CROWDS[batch_no - 1] if batch_no <= len(CROWDS) else (annotators.HONEST, annotators.HONEST2)
        rows, out = round1_batch(sh, batch, crowd, export, copied)
        reviews += rows
        outputs.append(out)
        export = f"picforge annotate mturk export --run {RUN} --batch r{batch_no + 1} --gold {GOLD}" \
            if names_a_new_batch(sh) else None
        assert batch_no < 6, "the rounds do not end"

    verdicts = {}
    for row in reviews:
        verdicts.setdefault(row["WorkerId"], set()).add("Approved" if row["Approve"] == "x" else
                                                        "Rejected" if row["Reject"] else "held")
    honest_approved_others_caught(verdicts, " ".join(outputs))
    round_two_and_the_end(sh, round1.MANUAL_BATCH)


def named_limit(sh):
    """` --limit N` as the last command's error names it (how many triplets the gold bank can serve now)."""
    return " --limit " + re.search(r"--limit (\d+)", sh.ran_output).group(1)


def names_a_new_batch(sh):
    """Whether the last command's `next:` lines ask for another round-1 batch (`mturk create` or `mturk export`)."""
    return any(hint.startswith(("picforge annotate mturk export", "picforge annotate mturk create"))
               for hint in sh.last)


def honest_approved_others_caught(verdicts, printed):
    """The honest workers' assignments all approved; the other three's all rejected, or the pair flagged."""
    assert {w: verdicts[w] for w in HONEST_WORKERS} == {w: {"Approved"} for w in HONEST_WORKERS}, verdicts
    for worker in (annotators.ALL_YES, annotators.NEVER_READER, annotators.COPIER):
        assert verdicts[worker] == {"Rejected"} or re.search(rf"copying\? workers .*{worker}", printed), \
            (worker, verdicts)


def round_two_and_the_end(sh, kind):
    """Round 2 for what round 1 rejected, as the hints say; then every item is decided or listed in the report."""
    verify2 = f"picforge annotate export verify2 --run {RUN} --verifiers vera,vic"
    assert sh.named(verify2), sh.hints[-4:]
    sh(verify2)
    annotators.fill_verify2(RUN, RETURNED, bad=False)
    sh(f"picforge annotate ingest verify2 --run {RUN} --sheets {' '.join(sorted(glob.glob(f'{RETURNED}/verify2-*.csv')))}")
    ledger = Ledger.for_run(RUN)
    with ledger.read() as q:
        asked = set(q.memberships(kind))
        decided = q.decision_map(ROUND_MTURK)
        annotated = {f"{a['triplet_id']}/{k}" for a in q.expert_annotations() for k in round1.ITEM_KINDS}
    ledger.dispose()
    assert annotated <= asked, f"{len(annotated - asked)} item(s) never asked"
    report = sh(f"picforge annotate report --run {RUN}")
    assert "Krippendorff" in report
    undecided = sorted(i for i in annotated - set(decided) if i not in report)
    assert not undecided, f"{len(undecided)} item(s) neither decided nor listed: {undecided[:5]}"


@pytest.mark.slow
def test_the_same_crowd_through_the_api_against_the_stand_in(tmp_path, monkeypatch, mined_103, release_103):
    sh = prepared(tmp_path, monkeypatch, mined_103, release_103)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "sandbox-crowd")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "sandbox-crowd")
    batches = []
    sandbox = SandboxMTurk(annotators.crowd_sandbox(RUN, batches, [w for crowd in CROWDS for w in crowd]))
    real_client = mturk_client.mturk_client
    monkeypatch.setattr(mturk_client, "mturk_client",
                        lambda live, profile=None: sandbox.attach(real_client(live, profile)))
    sandbox_only = "--min-approval-rate 0 --min-approved-hits 0"   # sandbox workers have no approval record
    create, printed = f"picforge annotate mturk create --run {RUN} --batch a1 --gold {GOLD} {sandbox_only}", ""
    while create:
        batch = re.search(r"--batch (\S+)", create).group(1)
        if batch not in batches:
            batches.append(batch)
        if sh(create, expect=None) and sh.code:   # the bank is short for this batch: the limit the error names
            create += named_limit(sh)
            sh(create)
        annotators.assert_gold_is_never_a_real_question(RUN, annotators._plan(RUN, batch)[0])
        before = ledger_dump(RUN)
        sh(create)   # re-running any step changes nothing
        assert_unchanged(before, ledger_dump(RUN), create)
        save = f"picforge annotate mturk save --run {RUN} --batch {batch}"
        assert sh.named(save), sh.last
        review = f"picforge annotate mturk review --run {RUN} --batch {batch} --block"
        for line in (save, review):
            printed += sh(line)
            before = ledger_dump(RUN)
            sh(line)
            assert_unchanged(before, ledger_dump(RUN), line)
        again = next((h for h in sh.last if re.match(r"picforge annotate mturk create .*--max-spend", h)), None)
        if again:    # rejected items asked again on their HITs (CreateAdditionalAssignmentsForHIT)
            create = again.replace("USD", "100") + f" --gold {GOLD} {sandbox_only}"
        elif names_a_new_batch(sh):
            create = f"picforge annotate mturk create --run {RUN} --batch a{len(batches) + 1} --gold {GOLD} {sandbox_only}"
        else:
            create = None
        assert len(sh.ran) < 80, "the rounds do not end"
    verdicts = {}
    for assignment in sandbox.assignments.values():
        verdicts.setdefault(assignment["WorkerId"], set()).add(assignment["AssignmentStatus"])
    honest_approved_others_caught(verdicts, printed)
    round_two_and_the_end(sh, round1.API_BATCH)
