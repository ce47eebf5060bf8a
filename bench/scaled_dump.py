"""A pages-articles dump repeated K times, each copy of a page with a fresh id and title (same text): the larger
inputs of bench/mine_memory.py, bench/mine_stages.py and bench/mine_multicore.py."""
import bz2
import os
import re

PAGE_ID_STRIDE = 10 ** 7  # copy k of page n gets id n + k * stride (as bench/mine_throughput.py); with the sample's
# revision ids (< 7.2e8) every id stays 32-bit, as read-dump requires, up to 140 copies
PAGE = re.compile(r"[ \t]*<page>.*?</page>\n?", re.DOTALL)
PAGE_TITLE = re.compile(r"<title>(.*?)</title>")
ANY_ID = re.compile(r"<id>(\d+)</id>")


def copied_page(block, copy):
    """Page XML `block` as copy number `copy`: every <id> moved by copy × stride, " (copy N)" after the title."""
    if copy == 0:
        return block
    block = PAGE_TITLE.sub(lambda m: f"<title>{m.group(1)} (copy {copy})</title>", block, count=1)
    return ANY_ID.sub(lambda m: f"<id>{int(m.group(1)) + copy * PAGE_ID_STRIDE}</id>", block)


def write_scaled_dump(source, scale, path):
    """Write `source`'s pages `scale` times (fresh ids and titles) as a bz2 pages-articles dump; (bz2, XML) bytes."""
    with bz2.open(source, "rt", encoding="utf-8") as fh:
        xml = fh.read()
    pages = list(PAGE.finditer(xml))
    header, footer = xml[:pages[0].start()], xml[pages[-1].end():]
    xml_bytes = 0
    with bz2.open(path, "wt", encoding="utf-8") as out:
        for text in (header, *(copied_page(p.group(), k) for k in range(scale) for p in pages), footer):
            out.write(text)
            xml_bytes += len(text.encode("utf-8"))
    return os.path.getsize(path), xml_bytes
