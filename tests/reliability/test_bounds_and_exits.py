"""Issue 37, classes 9 and 10, through `picforge` as a subprocess: bounds on what is read (unpacked XLSX members, LLM
answers past their token budget, cells no spreadsheet shows whole), one clear line for a failing LanguageTool server,
and what a killed run left behind removed by the next one."""
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from picforge import sheets
from picforge.errors import InputError
from picforge.rundir import RunDir
from tests.cli_helpers import ROOT, picforge_in_child
from tests.http_helpers import QuietHandler, serving
from tests.walkthrough import annotators

pytestmark = pytest.mark.slow


def exported_expert_sheet(mined_103, tmp_path):
    """A copy of the mined run with one expert batch exported; (run, the filled CSV sheet)."""
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    assert picforge_in_child("annotate", "export", "expert", "--run", run, "--annotators", "ann",
                             "--per-annotator", "3")[0] == 0
    [sheet] = annotators.fill_expert_sheets(str(run), str(tmp_path / "returned"), draft=False)
    return run, sheet


def test_an_xlsx_whose_members_unpack_past_the_bound_is_refused_before_it_is_read(mined_103, tmp_path):
    run, _ = exported_expert_sheet(mined_103, tmp_path)
    exported = run / "annotation" / "expert" / "expert-ann-001.xlsx"
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(exported) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info, source.read(info))
        target.writestr("xl/padding.bin", b"\0" * (sheets.MAX_UNPACKED_BYTES + 1))
    assert bomb.stat().st_size < 2 * 2**20  # under a megabyte or so on disk
    code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", bomb)
    assert code == 2 and f"{bomb}: unpacks to " in err and "MiB" in err, err

    # A member that declares less than it unpacks to: reading stops at the declared size and fails its CRC.
    liar = bytearray(bomb.read_bytes())
    entry = liar.find(b"xl/padding.bin", liar.find(b"PK\x01\x02")) - 46  # its name follows a 46-byte header
    assert liar[entry:entry + 4] == b"PK\x01\x02"
    liar[entry + 24:entry + 28] = (1024).to_bytes(4, "little")  # the central directory's uncompressed size
    (tmp_path / "liar.xlsx").write_bytes(liar)
    code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--no-grammar", "--sheets", tmp_path / "liar.xlsx")
    assert code == 2 and "liar.xlsx: not a readable XLSX workbook" in err, err


def test_a_cell_no_spreadsheet_shows_whole_is_refused_before_any_sheet_is_written(tmp_path):
    rows = [{"id": "a", "text": "short"}, {"id": "b", "text": "x" * (sheets.MAX_CELL_CHARS + 1)}]
    with pytest.raises(InputError, match=r"row 3, column text: 32,768 characters, more than a spreadsheet cell shows"):
        sheets.write_sheet(str(tmp_path / "batch"), ["id", "text"], rows)
    assert list(tmp_path.iterdir()) == []


class _Oversized(QuietHandler):
    """An OpenAI-compatible endpoint that ignores max_tokens: 400,000 characters, reported as 256 tokens."""
    seen = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        type(self).seen.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = {"id": "c1", "object": "chat.completion", "model": "m", "created": 0,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "word " * 80_000}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 256, "total_tokens": 266}}
        self.reply(200, json.dumps(body).encode(), "application/json")


def test_an_llm_answer_longer_than_its_token_budget_is_refused_counted_and_never_kept(stsb_file, tmp_path):
    _Oversized.seen = []
    rows = tmp_path / "sts-test.csv"
    rows.write_text("\n".join(stsb_file.read_text(encoding="utf-8").splitlines()[1:4]) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    env = dict(os.environ, OPENAI_API_KEY="sk-test", NO_PROXY="127.0.0.1")
    with serving(_Oversized) as server:
        done = subprocess.run([sys.executable, "-m", "picforge.cli", "stsb-context", "generate", "--stsb", str(rows), "--out",
                               str(out), "--base-url", f"http://127.0.0.1:{server.server_address[1]}/v1",
                               "--max-requests", "3", "--max-retries", "0"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert _Oversized.seen, done.stderr
    counters = RunDir(str(out)).read_manifest("generations")["counters"]
    assert counters["generations/answers_too_long"] == len(_Oversized.seen)
    for path in [p for p in out.rglob("*") if p.is_file()]:
        assert b"word word word word word word word word" not in path.read_bytes(), path  # cached nowhere, kept nowhere


class _Failing(QuietHandler):
    """A LanguageTool server that lists its languages and answers every check 500."""

    def do_GET(self):  # noqa: N802
        self.reply(200, json.dumps([{"name": "English (US)", "code": "en", "longCode": "en-US"}]).encode(),
                   "application/json")

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.reply(500, b'{"message": "internal error"}', "application/json")


def test_a_languagetool_server_answering_500_is_one_line_naming_it_and_the_status(mined_103, tmp_path):
    run, sheet = exported_expert_sheet(mined_103, tmp_path)
    with serving(_Failing) as server:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        code, _, err = picforge_in_child("annotate", "ingest", "expert", "--run", run, "--languagetool", url, "--sheets", sheet,
                                         env=dict(os.environ, NO_PROXY="127.0.0.1"))
    assert code == 2 and "Traceback" not in err and "KeyError" not in err, err
    assert err.strip().splitlines()[-1].startswith(f"picforge: error: LanguageTool server {url}: check failed (HTTP 500")


def test_what_a_killed_run_left_is_removed_by_the_next_run(mined_103, annotated_103, enwiki_sample_103, wic_zip,
                                                           tmp_path):
    run = tmp_path / "run"
    shutil.copytree(mined_103, run)
    stage = next(p for p in sorted(run.iterdir()) if p.is_dir())
    (stage / "beam-temp-part-00000-0a1b").mkdir()
    (stage / "beam-temp-part-00000-0a1b" / "shard").write_bytes(b"x")
    (stage / "_staging-4242.1-part-00000-of-00001.parquet").write_bytes(b"x")
    code, _, err = picforge_in_child("mine", "--input", enwiki_sample_103, "--wic", wic_zip, "--out", run)
    assert code == 0, err
    assert not [p for p in run.rglob("*") if p.name.startswith(("beam-temp-", "_staging-"))]

    dead = 2**22 + 12345  # above any process id
    (tmp_path / f".rel.partial-pid{dead}-x1y2").mkdir()
    (tmp_path / f".rel.partial-pid{dead}-x1y2" / "pic.jsonl").write_bytes(b"{}")
    (tmp_path / f"rel.old-pid{dead}-abcd1234").mkdir()
    code, _, err = picforge_in_child("build", "--run", annotated_103, "--out", tmp_path / "rel")
    assert code == 0, err
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name or ".old-" in p.name]
