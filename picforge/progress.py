"""Progress a user can read during a long run: a line when a stage starts and ends (records, records/s), a
periodic line from inside the slow DoFns (items so far, items/s, time left where the total is known), on the
`picforge.progress` logger, and a bar for loops a verb runs in its own process when attached to a terminal."""
import contextlib
import logging
import os
import re
import sys
import threading
import time

log = logging.getLogger("picforge.progress")
INTERVAL_S = 30.0
# Longest quiet spell of a command before `heartbeat` says it is still working (below INTERVAL_S, so no stretch of
# stderr goes silent for 30 s even when a heartbeat line waits for the interpreter).
HEARTBEAT_S = 20.0
# Counters that count items a stage dropped, skipped or flagged, by reason: `dropped-<reason>`,
# `skipped-<reason>`, `broken-<reason>`, `<things>-dropped-<reason>`.
_bars_on_screen = []  # `tracked`'s bars now drawn: they show a command is alive, so the heartbeat's line stays away
SPINNER = "|/-\\"  # the live line's first character, turning once a second while a command is quiet
DROP_COUNTER = re.compile(r"^(?:[a-z]+-)?(?:dropped|skipped|broken)-")


class Progress:
    """Counts one stage's items in this worker and logs how far it got at most every `interval` seconds, with the
    time left when `total` (items) or the fraction done given to `tick` is known."""

    def __init__(self, stage, unit, interval=None, total=None):
        self.stage, self.unit, self.total = stage, unit, total
        self.interval = INTERVAL_S if interval is None else interval
        self.count = 0
        self.started = self.logged = None

    def tick(self, n=1, fraction=None):
        now = time.monotonic()
        if self.started is None:
            self.started = self.logged = now
        self.count += n
        if now > self.started and now - self.logged >= self.interval:
            self.logged = now
            elapsed = now - self.started
            if fraction is None and self.total:
                fraction = self.count / self.total
            log.info("%s: %s %s in %.0f s (%s/s)%s", self.stage, f"{self.count:,}", self.unit, elapsed,
                     f"{self.count / elapsed:,.0f}", time_left(elapsed, fraction))


def time_left(elapsed, fraction):
    """', 42% done, about 3 min left' from the seconds spent and the fraction done ('' when unknown)."""
    if not fraction or fraction <= 0:
        return ""
    fraction = min(fraction, 1.0)
    left = elapsed * (1 - fraction) / fraction
    spelled = f"{left:.0f} s" if left < 90 else f"{left / 60:.0f} min" if left < 5400 else f"{left / 3600:.1f} h"
    return f", {100 * fraction:.0f}% done, about {spelled} left"


def tracked(items, total, stage, unit):
    """`items` with visible progress: a tqdm bar when stderr is a terminal, else a log line every 30 s and one
    when all `total` are done."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        with tqdm(items, total=total, desc=stage, unit=f" {unit}", file=sys.stderr) as bar:
            _bars_on_screen.append(bar)
            try:
                yield from bar
            finally:
                _bars_on_screen.remove(bar)
        return
    progress = Progress(stage, unit, total=total)
    started = time.monotonic()
    for item in items:
        yield item
        progress.tick()
    log.info("%s: %s %s in %.1f s", stage, f"{progress.count:,}", unit, time.monotonic() - started)


def stage_started(stages):
    log.info("%s: running", ", ".join(stages))


def drop_counts(manifest):
    """{reason counter: count} of what a finished stage dropped, skipped or flagged (from its Beam counters)."""
    prefix = manifest["stage"] + "/"
    return {name[len(prefix):]: count for name, count in sorted(manifest.get("counters", {}).items())
            if name.startswith(prefix) and DROP_COUNTER.match(name[len(prefix):]) and count}


def _log_drops(manifest):
    drops = drop_counts(manifest)
    if drops:
        log.info("%s: %s", manifest["stage"], ", ".join(f"{name} {count:,}" for name, count in drops.items()))


def stage_finished(manifests):
    """One line per finished stage (records written) and one with its drops by reason, then the job's seconds and
    records/s (with one stage) or its seconds and CPU seconds (with several, which share them)."""
    first = next(iter(manifests.values()))
    seconds = max(first["seconds"], 1e-3)
    if len(manifests) == 1:
        log.info("%s: %s records in %.1f s (%s records/s)", first["stage"], f"{first['records']:,}", seconds,
                 f"{first['records'] / seconds:,.0f}")
        _log_drops(first)
        return
    for stage, manifest in manifests.items():
        log.info("%s: %s records", stage, f"{manifest['records']:,}")
        _log_drops(manifest)
    cpu = "" if first.get("cpu_seconds") is None else f", {first['cpu_seconds']:.1f} CPU s"
    log.info("one job for %s: %.1f s%s", ", ".join(manifests), seconds, cpu)


class _LastLine(logging.Handler):
    """Notes when the progress logger last wrote, and its last line that was not a heartbeat; clears the live
    line (if any) before the record is written."""

    def __init__(self, live=None):
        super().__init__()
        self.at, self.line, self.live = time.monotonic(), "", live

    def emit(self, record):
        self.at = time.monotonic()
        if not getattr(record, "heartbeat", False):
            self.line = record.getMessage()
        if self.live is not None:
            self.live.clear()


class _LiveLine:
    """One line on the terminal (stderr), redrawn in place and cut to the terminal's width; cleared before a log
    line is written, so log lines never land beside it."""

    def __init__(self):
        self.lock, self.shown = threading.Lock(), False

    def show(self, text):
        try:
            width = os.get_terminal_size(sys.stderr.fileno()).columns or 80
        except OSError:
            width = 80
        with self.lock:
            sys.stderr.write(f"\r{text[:width - 1]}\x1b[K")
            sys.stderr.flush()
            self.shown = True

    def clear(self):
        with self.lock:
            if self.shown:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
                self.shown = False


@contextlib.contextmanager
def heartbeat(what, quiet_s=None):
    """While the block runs and the progress logger stayed quiet for `quiet_s` seconds, say
    '<what>: still working (N s in all; last: "<line>")': on a terminal as a live line redrawn every second, else
    as a log line every `quiet_s` seconds. A command is never silent for long, on a terminal or off."""
    quiet_s = HEARTBEAT_S if quiet_s is None else quiet_s
    live = _LiveLine() if sys.stderr.isatty() else None
    last, stop, started = _LastLine(live), threading.Event(), time.monotonic()
    log.addHandler(last)

    def beat():
        spin = 0
        while not stop.wait(min(1.0, quiet_s)):
            now = time.monotonic()
            if now - last.at < quiet_s or (live is not None and _bars_on_screen):
                if live is not None:
                    live.clear()
                continue
            since = f'; last: "{last.line[:80]}"' if last.line else ""
            if live is None:
                log.info("%s: still working (%.0f s in all%s)", what, now - started, since, extra={"heartbeat": True})
            else:
                spin += 1
                live.show(f"{SPINNER[spin % len(SPINNER)]} {what}: still working ({now - started:.0f} s in all{since})")

    thread = threading.Thread(target=beat, name="picforge-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        log.removeHandler(last)
        if live is not None:
            live.clear()
