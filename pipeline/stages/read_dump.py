"""Stage `read-dump`: stream namespace-0 articles out of pages-articles XML dumps (files or multistream streams
read in parallel; reading in `pipeline.dump.reader`, parts in `pipeline.dump.index`, pages in `pipeline.dump.pages`)."""
import logging

import apache_beam as beam
from apache_beam.metrics import Metrics

from picforge.embedded_runner import Spread
from picforge.errors import InputError
from picforge.progress import Progress
from pipeline.dump.index import dump_parts
from pipeline.dump.pages import DEFAULT_MAX_PAGE_BYTES, SeenIds, article_fields, article_record, classify_page
from pipeline.dump.reader import DumpFileError, expand_inputs, located_pages
from pipeline.stages.clean import CleanPages

STAGE = "read-dump"
log = logging.getLogger(__name__)


class _ReadDumpParts(beam.DoFn):
    """Read groups of dump parts (whole files or multistream streams), in order, into article records, counting
    every skipped page by reason; a progress line every 30 s says how much of the input is left."""

    def __init__(self, max_pages, max_page_bytes, parts_total):
        self.max_pages, self.max_page_bytes, self.parts_total = max_pages, max_page_bytes, parts_total
        self.pages = Metrics.counter(STAGE, "pages-read")
        self.kept = Metrics.counter(STAGE, "articles")
        self.bad_files = Metrics.counter(STAGE, "files-unreadable")

    def setup(self):
        self.seen = SeenIds()
        self.parts_done = 0
        self.progress = Progress(STAGE, "pages read")

    def process(self, parts):
        kept = 0
        for part in parts:
            for record in self._read_part(part):
                yield record
                kept += 1
                if self.max_pages and kept >= self.max_pages:
                    return
            self.parts_done += 1

    def _read_part(self, part):
        try:
            for (fields, wikitext, is_redirect), fraction in located_pages(part, self.parts_done, self.parts_total,
                                                                           self.max_page_bytes):
                self.pages.inc()
                self.progress.tick(fraction=fraction)
                reason = classify_page(fields, wikitext, is_redirect, self.max_page_bytes)
                if not reason and self.seen.add(fields["page_id"]):
                    reason = "duplicate-id"
                if reason:
                    Metrics.counter(STAGE, f"skipped-{reason}").inc()
                    if reason in ("unparseable", "too-large", "invalid-utf8", "bad-id", "duplicate-id"):
                        log.warning("%s: page %s (%r) skipped: %s%s", part[0], fields["page_id"], fields["title"],
                                    reason, f" ({fields['detail']})" if fields.get("detail") else "")
                    continue
                self.kept.inc()
                yield article_record(fields, wikitext)
        except (DumpFileError, InputError) as err:
            self.bad_files.inc()
            log.error("%s", err)


class ReadDump(beam.PTransform):
    """pages-articles XML(.bz2) files → article records (namespace 0, no redirects/disambiguation/empties).

    Files, and the streams of a multistream dump whose index sits beside it, are read in parallel; with
    `max_pages` files are read whole, one after another, in sorted order, so the run keeps the first N articles
    of the whole input.
    """

    def __init__(self, file_pattern, max_pages=None, max_page_bytes=DEFAULT_MAX_PAGE_BYTES):
        super().__init__()
        self.parts = dump_parts(expand_inputs(file_pattern), sequential=bool(max_pages))
        self.max_pages = max_pages
        self.max_page_bytes = max_page_bytes

    def expand(self, pbegin):
        groups = [tuple(self.parts)] if self.max_pages else [(part,) for part in self.parts]
        return (
            pbegin
            | "dump parts" >> beam.Create(groups)
            | "spread parts" >> Spread()
            | "parse pages" >> beam.ParDo(_ReadDumpParts(self.max_pages, self.max_page_bytes, len(self.parts)))
            | "spread pages" >> Spread()
        )


class ReadAndClean(beam.PTransform):
    """The pipeline → {"read-dump": Article records, "clean": Page records}, both from one read of `dump`."""

    def __init__(self, dump, max_pages=None):
        super().__init__()
        self.dump, self.max_pages = dump, max_pages

    def expand(self, pipeline):
        articles = pipeline | "dump" >> ReadDump(self.dump, max_pages=self.max_pages)
        return {"read-dump": articles | "article fields" >> beam.Map(article_fields),
                "clean": articles | "clean" >> CleanPages()}
