"""docs/walkthrough.md, run: every command of its fenced `sh` blocks in order, on the real 103-page sample, with the
scripted people of tests/walkthrough/annotators.py filling the sheets between commands.

`picforge …` runs in this process (the console script's entry point, picforge.cli.main, with the same argv);
`python -c CODE` runs CODE here too. Two lines provision the machine and are replaced by what they provide:
`make demo` (a virtualenv, then `picforge mine` of the sample shipped in examples/data into runs/demo: here
the mine call itself, on the files the Makefile names) and
`docker compose … languagetool … up` (a LanguageTool server: here a local server speaking its HTTP API, whose
address then replaces the documented one in `export LANGUAGETOOL_URL=…`). MTurk's sandbox is a real boto3 client
whose requests are answered in-process (tests/walkthrough/mturk_service.py).
"""
import contextlib
import csv
import glob
import hashlib
import http.server
import io
import json
import os
import re
import shlex
import shutil
import threading
from collections import Counter

import pytest

from annotation.mturk import client as mturk_client
from picforge import cli
from pipeline.mine import mine
from picforge.rundir import RunDir
from tests.croissant_checks import check_croissant
from tests.annotation.test_languagetool import LanguageToolHandler
from tests.conftest import ROOT
from tests.walkthrough import annotators
from tests.walkthrough.mturk_service import SandboxMTurk

DOC = ROOT / "docs" / "walkthrough.md"
RUN, RELEASE, RETURNED = "runs/demo", "runs/demo-release", "returned"
GOLD, SHIPPED_GOLD = "runs/demo-gold.jsonl", "examples/mturk-gold.jsonl"


def documented_commands(text):
    """The commands of the fenced `sh` blocks, in order (continuation lines joined, comments dropped)."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def words(line):
    """shlex words of a line with $VARIABLES expanded and globs expanded as a shell does."""
    out = []
    for word in shlex.split(os.path.expandvars(line)):
        matches = sorted(glob.glob(word)) if any(c in word for c in "*?[") else []
        out.extend(matches or [word])
    return out


class Session:
    """The shell of the walkthrough: runs documented lines, keeps what each printed."""

    def __init__(self, monkeypatch, mined, sample, wic_zip):
        self.monkeypatch, self.mined, self.sample, self.wic_zip = monkeypatch, mined, sample, wic_zip
        self.outputs, self.seen = [], Counter()

    def run(self, line):
        if line == "make demo":
            return self.capture(self.mine_sample)
        if line.startswith("docker compose") and "languagetool" in line:
            return self.start_languagetool()
        if line.startswith("export "):
            name, _, value = line[len("export "):].partition("=")
            if name == "LANGUAGETOOL_URL":
                value = self.languagetool_url
            self.monkeypatch.setenv(name, value)
            return 0, "", ""
        argv = words(line)
        if argv[0] == "picforge":
            return self.capture(lambda: cli.main(argv[1:]))
        if argv[:2] == ["mkdir", "-p"]:
            for folder in argv[2:]:
                os.makedirs(folder, exist_ok=True)
            return 0, "", ""
        if argv[:2] == ["python", "-c"]:
            return self.capture(lambda: exec(argv[2], {}) or 0)
        raise AssertionError(f"the walkthrough runs `{line}`, which this test does not know how to run")

    def mine_sample(self):
        shutil.copytree(self.mined, RUN)  # the session's mining run of the same files: `mine` finds it up to date
        mine(str(self.sample), str(self.wic_zip), RUN)
        return 0

    def capture(self, call):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = call()
            except SystemExit as exit_:
                code = exit_.code
        return code, out.getvalue(), err.getvalue()

    def start_languagetool(self):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), LanguageToolHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.server = server
        self.languagetool_url = f"http://127.0.0.1:{server.server_address[1]}"
        return 0, "", ""


def sha256(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def demo_inputs():
    """The dump and WiC zip `make demo` mines into runs/demo, read from the Makefile."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^RUN \?= runs/demo$", makefile, re.M), "make demo must mine into runs/demo"
    data = re.search(r"^DEMO_DATA \?= (\S+)$", makefile, re.M).group(1)
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M).group(1).replace("\\\n", " ")
    dump, wic = (re.search(rf"--{flag} \$\(DEMO_DATA\)/(\S+)", recipe).group(1) for flag in ("input", "wic"))
    return ROOT / data / dump, ROOT / data / wic


@pytest.mark.slow
def test_the_walkthrough_runs_as_documented(tmp_path, monkeypatch, mined_103, enwiki_sample_103, wic_zip):
    assert demo_inputs() == (enwiki_sample_103, wic_zip)  # mined_103 mined what `make demo` mines
    for shipped in ("examples", "docker"):
        os.symlink(ROOT / shipped, tmp_path / shipped)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "sandbox-walkthrough")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "sandbox-walkthrough")
    monkeypatch.delenv("PICFORGE_LEDGER", raising=False)
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    sandbox = SandboxMTurk(annotators.sandbox_worker(RUN, "r1-api"))
    real_client = mturk_client.mturk_client
    monkeypatch.setattr(mturk_client, "mturk_client",
                        lambda live, profile=None: sandbox.attach(real_client(live, profile)))
    session = Session(monkeypatch, mined_103, *demo_inputs())

    # What the people do before a command (keyed by the command and how often it ran), and what must hold after.
    def before(line, nth):
        if "annotate ingest expert" in line:
            annotators.fill_expert_sheets(RUN, RETURNED, draft=nth == 0)
        elif "annotate mturk ingest" in line:
            # The rehearsal file, filled by scripted workers, reads as the requester site's download: the shipped
            # example (what the site exported for this batch; regenerate it with annotators.requester_ui_results
            # when the demo's triplets change) has the same Input.* and Answer.* cells, row by row.
            fresh = annotators.requester_ui_results(RUN, "r1-ui", "regenerated")
            assert sha256(fresh) == sha256(f"examples/mturk/{annotators.RESULTS_NAME}"), "examples/mturk is stale"
            filled = annotators.fill_rehearsal(RUN, "r1-ui", f"{RETURNED}/Batch_rehearsal_batch_results.csv")
            with open(fresh, encoding="utf-8", newline="") as fh:
                downloaded = list(csv.DictReader(fh))
            assert set(downloaded[0]) <= set(filled[0]), "the rehearsal file has every column of a download"
            echoed = [{k: v for k, v in r.items() if k.startswith(("Input.", "Answer."))} for r in filled]
            assert echoed == [{k: r[k] for k in e} for r, e in zip(downloaded, echoed)]
            assert len(filled) == len(downloaded)
        elif "annotate ingest verify2" in line:
            annotators.fill_verify2(RUN, RETURNED, bad=nth == 0)
        elif "annotate ingest ps-verify" in line and "-A3-" in line:
            annotators.fill_ps_tiebreak(RUN, RETURNED)
        elif "annotate ingest ps-verify" in line:
            annotators.fill_ps_first_pass(RUN, RETURNED)

    def after(line, nth, out):
        if "annotate ingest ps-verify" in line and "-A3-" in line:
            assert f"next: picforge annotate export final --run {RUN}" in out
        elif "annotate export final" in line:
            assert f"next: picforge build --run {RUN} --out RELEASE" in out
        if "annotate ingest expert" in line:
            # The first draft's mistakes (two refused rows, one LanguageTool remark) are on the fix-lists by file,
            # row and column; once the experts fixed them, none is left.
            mistakes = set(annotators.first_draft_cells(RETURNED))
            assert len(mistakes) == len(annotators.FIRST_DRAFT)
            assert mistakes <= fix_list_cells() if nth == 0 else not mistakes & fix_list_cells()
        elif "annotate mturk gold" in line:
            # The shipped bank is what this step writes: every question from a triplet the pilot settled, with its
            # source; none of them is ever asked in round 1.
            assert open(GOLD, "rb").read() == open(SHIPPED_GOLD, "rb").read(), f"{SHIPPED_GOLD} is stale"
            bank = [json.loads(line) for line in open(GOLD, encoding="utf-8")]
            pilot = {iid.rsplit("/", 1)[0] for iid in pilot_items()}
            assert bank and all(g["triplet_id"] in pilot and g["source"] for g in bank)
            assert {g["answer"] for g in bank} == {True, False}
        if "annotate mturk export" in line or "annotate mturk create" in line:
            annotators.assert_gold_is_never_a_real_question(RUN, annotators._plan(RUN, re.search(r"--batch (\S+)", line).group(1))[0])
        if "annotate mturk export" in line:
            assert "aws mturk create-qualification-type" in out and os.path.exists(f"{RUN}/mturk/r1-ui/r1-ui_answer_key.xml")
        elif "annotate report" in line:
            # Every triplet's q1, q2 and q3 were annotated; round 2 dropped VERIFIER_REJECTS, the rest is kept,
            # each paraphrase and label on its own.
            phrases = {t["phrase"] for t in RunDir(RUN).iter_records("select")}
            dropped = sum(phrase in phrases for phrase, _ in annotators.VERIFIER_REJECTS)
            assert f"| Kept (round 1 or round 2, or the pilot) | {2 * len(phrases) - dropped} | {len(phrases)} |" in out
        elif line.startswith("picforge build"):
            check_release()
            # What the rounds left out is listed by reason: printed, and in the card.
            card = open(f"{RELEASE}/README.md", encoding="utf-8").read()
            assert "annotations left out: " in out and "## Annotations left out" in card
            assert "rejected in round 1 and in round 2" in card
        elif line.startswith("picforge release evaluate"):
            # every score with its interval, and the sample's small test splits said to be too small
            assert "[low, high]: 95 % bootstrap interval (1,000 resamples of the test items, seed 0)" in out
            assert re.search(r"^\| all-MiniLM-L6-v2 \| \d+\.\d\d \[\d+\.\d\d, \d+\.\d\d\] \|", out, re.M)
            assert "warning: the PS test split has 4 items, under 30: too few" in out
        elif "publish" in line and "--live" in line:
            published = {os.path.relpath(os.path.join(d, f), "published/pic")
                         for d, _, fs in os.walk("published/pic") for f in fs}
            manifest = json.load(open(f"{RELEASE}/MANIFEST.json"))
            assert published == set(manifest["files"]) | {"MANIFEST.json"}
            assert all(sha256(f"published/pic/{f}") == meta["sha256"] for f, meta in manifest["files"].items())
        elif "publish" in line:
            assert not os.path.exists("published") and "nothing uploaded" in out

    hints_after = {}
    commands = documented_commands(DOC.read_text(encoding="utf-8"))
    assert commands[0] == "make demo" and sum("picforge" in c for c in commands) >= 20
    for line in commands:
        nth = session.seen[line]
        session.seen[line] += 1
        before(line, nth)
        code, out, err = session.run(line)
        if code == 2 and "annotate ingest verify2" in line and nth == 0:
            # The verifier's unreadable cell is refused with file, row and column; nothing is recorded.
            assert re.search(rf"returned/verify2-[\w-]+\.csv: row \d+, column answer: '{annotators.BAD_VERIFY2_ANSWER}' "
                             "is not Y or N", err), err
            before(line, nth + 1)
            code, out, err = session.run(line)
        assert code == 0, f"`{line}` exited {code}:\n{out}\n{err}"
        # Every step ends with a `next:` (the report to standard output is the page itself, with its Next section).
        if line.startswith("picforge") and not ("annotate report" in line and "--out" not in line):
            assert re.search(r"^next: ", out + err, re.M), f"`{line}` printed no next: line"
        after(line, nth, out)
        hints_after[len(session.outputs)] = re.findall(r"^next: picforge (\w+(?: [\w-]+)?(?: [\w-]+)?)", out, re.M)
        session.outputs.append((line, out))
        print(f"$ {line}\n{out}{err}")

    # Every next-step hint comes from the ledger's state: what it names is still ahead in the walkthrough, never a
    # step already done (e.g. the expert sheets once they were exported).
    ran = [" ".join(words(line)[:4]) for line in commands]
    for index, hints in hints_after.items():
        for verb in hints:
            assert any(command.startswith(f"picforge {verb}") for command in ran[index + 1:]), (
                f"after `{commands[index]}` the hint names `picforge {verb}`, which nothing later runs")
    assert sum(map(len, hints_after.values())) >= 8


def pilot_items():
    """Item ids the walkthrough's expert pilot settled."""
    from annotation.final import pilot_items as settled
    from picforge.ledger import Ledger

    ledger = Ledger.for_run(RUN)
    try:
        with ledger.read() as q:
            return settled(q)
    finally:
        ledger.dispose()


def fix_list_cells():
    """(file, row, column) of every entry on the experts' fix-lists."""
    cells = set()
    for path in glob.glob(f"{RUN}/annotation/expert/fixlists/fixes-*.csv"):
        with open(path, encoding="utf-8-sig", newline="") as fh:
            cells |= {(r["file"], int(r["row"]), r["column"]) for r in csv.DictReader(fh)}
    return cells


def check_release():
    """Every written split holds rows, no triplet crosses splits across configs, PS releases the endorsed
    correction, and every config loads with `datasets` from its files."""
    from datasets import load_dataset

    triplet_of_sentence = {t["page1"]["sentence"]: t["triplet_id"] for t in RunDir(RUN).iter_records("select")}
    manifest = json.load(open(f"{RELEASE}/MANIFEST.json"))
    split_of, ps = {}, []
    for config, counts in manifest["counts"].items():
        for split in counts:
            with open(f"{RELEASE}/{config}/{split}.json", encoding="utf-8") as fh:
                rows = [json.loads(line) for line in fh]
            assert rows, f"{config}/{split} written empty"
            for row in rows:
                tid = triplet_of_sentence[row["sentence1"]] if config == "PS" else row["id"].rsplit("-", 1)[0]
                assert split_of.setdefault(tid, split) == split, f"triplet {tid} in {split_of[tid]} and {config}/{split}"
            ps += rows if config == "PS" else []
        loaded = load_dataset(RELEASE, config)
        assert {s: loaded[s].num_rows for s in loaded} == counts
    # PS's triplets are split 70/10/20 among themselves: a test split with both classes, flagged as small
    assert manifest["counts"]["PS"] == {"train": 11, "validation": 1, "test": 4}
    with open(f"{RELEASE}/PS/test.json", encoding="utf-8") as fh:
        assert {json.loads(line)["label"] for line in fh} == {0, 1}
    card = open(f"{RELEASE}/README.md", encoding="utf-8").read()
    assert "| PS | test | 4 | **too small to evaluate on** (under 30 items) |" in card
    assert "## Agreement" in card and "- Krippendorff's α, PS verification (experts), PS pair: " in card
    metadata = check_croissant(RELEASE, "croissant-cache")  # RAI fields from the ledger the walkthrough filled
    assert any(line.startswith("Krippendorff's α, round 1 (MTurk), paraphrase (q1, q2): n/a, no item was rated by two")
               for line in metadata["rai:dataAnnotationAnalysis"])
    assert metadata["rai:dataAnnotationAnalysis"][0].startswith("gold check questions in round 1: ")
    # Round 1 ran on the MTurk sandbox (r1-api) and as a rehearsal (r1-ui): the release credits neither to a crowd,
    # and says it is a rehearsal build first.
    round1 = [p for p in metadata["rai:dataAnnotationPlatform"] if p.startswith("round 1, ")]
    assert sorted(p.rsplit("; ", 1)[1] for p in round1) == [
        "Amazon Mechanical Turk sandbox (test workers, not the paid crowd)",
        "rehearsal (`annotate mturk rehearse`: a scripted or hand-filled results file, not crowd work)"]
    card = open(f"{RELEASE}/README.md", encoding="utf-8").read().split("---\n", 2)[2].lstrip("\n")
    assert card.startswith("# PiC: Phrase-in-Context (picforge build) — REHEARSAL BUILD, not crowd-annotated\n\n"
                           f"**{manifest['rehearsal']}**")
    assert any(t.startswith("LanguageTool (grammar check): ") for t in metadata["rai:machineAnnotationTools"])
    final = list(RunDir(RUN).iter_records("final_annotations"))
    corrected = {r["triplet_id"]: r["ps_q1_phrase"] for r in final
                 if r["ps_q1_phrase"] and r["ps_q1_phrase"] != r["q1"]}  # A1's correction, endorsed by A3
    assert corrected, "the rounds keep the endorsed correction"
    for row in ps:  # wherever the corrected pair ships (balancing may sample it out), it ships the correction
        tid = triplet_of_sentence[row["sentence1"]]
        if row["label"] == 1 and tid in corrected:
            assert row["phrase2"] == corrected[tid], "the endorsed correction is released in place of q1"
    kept_paraphrases = sum((r["q1"] is not None) + (r["q2"] is not None) for r in final)
    assert sum(manifest["counts"]["PR-pass"].values()) == kept_paraphrases, "PR-pass: one example per kept paraphrase"
