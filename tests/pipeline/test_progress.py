"""Progress lines during long stages, and the embedding model loaded only when a stage has texts to embed."""
import fcntl
import io
import logging
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import apache_beam as beam
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from picforge.encoders import process_sentence_model
from picforge.inference import EmbedTexts, SentenceTransformerHandler
from picforge.progress import Progress, time_left, tracked


def test_progress_logs_count_and_rate_once_per_interval(caplog):
    caplog.set_level(logging.INFO, logger="picforge.progress")
    every_tick, quiet = Progress("phrases", "sentences parsed", interval=0), Progress("clean", "pages", interval=3600)
    for _ in range(3):
        every_tick.tick(100)
        quiet.tick()
        time.sleep(0.01)
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(" in ")[0] for line in lines] == [  # the first tick only starts the clock
        "phrases: 200 sentences parsed", "phrases: 300 sentences parsed"]
    assert all(line.endswith("/s)") for line in lines)


def test_time_left_is_spelled_from_the_fraction_done():
    assert time_left(20, 0.25) == ", 25% done, about 60 s left"
    assert time_left(60, 0.1) == ", 10% done, about 9 min left"
    assert time_left(3600, 0.25) == ", 25% done, about 3.0 h left"
    assert time_left(10, None) == time_left(10, 0) == ""


def test_progress_with_a_total_says_how_much_is_left(caplog):
    caplog.set_level(logging.INFO, logger="picforge.progress")
    streams = Progress("read-dump", "streams", interval=0, total=4)
    for _ in range(3):
        streams.tick()
        time.sleep(0.01)
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["read-dump: 2 streams in 0 s",
                                                                       "read-dump: 3 streams in 0 s"]
    assert caplog.records[-1].getMessage().endswith(", 75% done, about 0 s left")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_tracked_draws_a_bar_on_a_terminal_and_logs_elsewhere(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="picforge.progress")
    assert list(tracked(iter("abc"), 3, "ranking", "examples")) == ["a", "b", "c"]
    assert caplog.records[-1].getMessage().startswith("ranking: 3 examples in ")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    caplog.clear()
    assert list(tracked(iter("abc"), 3, "ranking", "examples")) == ["a", "b", "c"]
    assert "ranking: 100%" in terminal.getvalue() and "3/3" in terminal.getvalue() and not caplog.records


def _embed(texts):
    with TestPipeline() as p:
        dims = (p | beam.Create(texts) | beam.Map(lambda t: (t, t))
                | EmbedTexts(SentenceTransformerHandler(stage="pairs"))
                | beam.MapTuple(lambda key, vector: (key, len(vector))))
        assert_that(dims, equal_to([(t, 384) for t in texts]))


def test_the_model_loads_with_its_bar_only_when_there_are_texts_to_embed(capfd):
    process_sentence_model.cache_clear()  # a model an earlier test loaded in this process would be reused
    _embed([])
    assert "Loading weights" not in capfd.readouterr().err
    _embed(["A river bank in spring.", "The bank raised its rates."])
    assert "Loading weights" in capfd.readouterr().err


def test_heartbeat_says_a_quiet_command_is_still_working_and_names_its_last_line(caplog):

    from picforge import progress

    with caplog.at_level(logging.INFO, logger=progress.log.name):
        with progress.heartbeat("cosimlex candidates", quiet_s=0.3):
            progress.log.info("sentences: 98 pages split")
            time.sleep(1.0)
        quiet = len(caplog.messages)
        time.sleep(0.5)                                # after the block, no more heartbeats
    beats = [m for m in caplog.messages if "still working" in m]
    assert beats and all(m.startswith("cosimlex candidates: still working (") for m in beats)
    assert all(m.endswith('last: "sentences: 98 pages split")') for m in beats)   # never its own line
    assert len(caplog.messages) == quiet


QUIET_COMMAND = """
import logging, time
from picforge import progress
logging.basicConfig(format="%(message)s")
progress.log.setLevel(logging.INFO)
with progress.heartbeat("demo verb", quiet_s=0.3):
    progress.log.info("sentences: 98 pages split")
    time.sleep(2.0)
    progress.log.info("phrases: 3 records")
"""


# A verb's own loop with a bar (`tracked`) under the heartbeat: the bar is the live line while it runs.
TRACKED_LOOP = """
import logging, time
from picforge import progress
logging.basicConfig(format="%(message)s")
progress.log.setLevel(logging.INFO)
with progress.heartbeat("demo verb", quiet_s=0.3):
    for _ in progress.tracked(range(4), 4, "candidates", "phrases"):
        time.sleep(0.4)
"""


def _quiet_command_stderr(on_terminal, script=QUIET_COMMAND):
    """What `script` writes on stderr, given a pseudo-terminal or a pipe."""
    command = [sys.executable, "-c", script]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    if not on_terminal:
        return subprocess.run(command, env=env, stderr=subprocess.PIPE, text=True, check=True, timeout=60).stderr
    terminal, child_side = pty.openpty()
    fcntl.ioctl(child_side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 24 rows of 120 columns
    child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=child_side, stderr=child_side)
    os.close(child_side)
    written = []
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the child closed its side
            break
        if not chunk:
            break
        written.append(chunk)
    os.close(terminal)
    assert child.wait(timeout=60) == 0
    return b"".join(written).decode()


def test_heartbeat_on_a_terminal_is_a_live_line_cleared_before_each_log_line():
    written = _quiet_command_stderr(on_terminal=True)
    frames = re.findall(r'\r(.) demo verb: still working \((\d+) s in all; last: "([^"]+)"\)\x1b\[K', written)
    assert len(frames) >= 2 and len({spinner for spinner, _, _ in frames}) >= 2   # redrawn, turning
    assert {last for _, _, last in frames} == {"sentences: 98 pages split"}
    assert "\r\x1b[Kphrases: 3 records" in written          # the live line is cleared before a log line
    assert not any(line.startswith("demo verb") for line in written.splitlines())  # no heartbeat log line
    assert written.endswith("phrases: 3 records\r\n")        # nothing left on screen once the block ends


def test_heartbeat_draws_nothing_over_a_bar_on_the_terminal():
    written = _quiet_command_stderr(on_terminal=True, script=TRACKED_LOOP)
    assert "candidates: 100%" in written and "4/4" in written
    assert "still working" not in written


def test_heartbeat_off_a_terminal_is_a_log_line_and_draws_nothing():
    written = _quiet_command_stderr(on_terminal=False)
    beats = [line for line in written.splitlines() if "still working" in line]
    assert beats and all(re.fullmatch(r'demo verb: still working \(\d+ s in all; last: "sentences: 98 pages '
                                      r'split"\)', line) for line in beats)
    assert "\r" not in written and "\x1b" not in written
