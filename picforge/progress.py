"""Progress a user can read during a long run: a line when a stage starts and ends (records, records/s), and a
periodic line from inside the slow DoFns (items so far, items/s), on the `picforge.progress` logger."""
import logging
import re
import time

log = logging.getLogger("picforge.progress")
INTERVAL_S = 30.0
# Counters that count items a stage dropped, skipped or flagged, by reason: `dropped-<reason>`,
# `skipped-<reason>`, `broken-<reason>`, `<things>-dropped-<reason>`.
DROP_COUNTER = re.compile(r"^(?:[a-z]+-)?(?:dropped|skipped|broken)-")


class Progress:
    """Counts one stage's items in this worker and logs how far it got at most every `interval` seconds."""

    def __init__(self, stage, unit, interval=INTERVAL_S):
        self.stage, self.unit, self.interval = stage, unit, interval
        self.count = 0
        self.started = self.logged = None

    def tick(self, n=1):
        now = time.monotonic()
        if self.started is None:
            self.started = self.logged = now
        self.count += n
        if now > self.started and now - self.logged >= self.interval:
            self.logged = now
            log.info("%s: %s %s in %.0f s (%s/s)", self.stage, f"{self.count:,}", self.unit, now - self.started,
                     f"{self.count / (now - self.started):,.0f}")


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
