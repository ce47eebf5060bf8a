"""Which inline templates a dump's article prose uses (a template between words of a line), by name, and how
many of them the cleaner renders: the measurement behind pipeline.inline_templates.RENDERED_TEMPLATES.

    python bench/inline_templates.py [DUMP] [--top 40]
"""
import argparse
import collections
import re

import mwparserfromhell

from pipeline.stages import clean
from pipeline.dump.pages import classify_page
from pipeline.dump.reader import read_pages

MARK = "\ue002{}\ue003"
MARKED = re.compile("\ue002(\\d+)\ue003")


class _MarkingRenderer(clean._Renderer):
    """Renders as the cleaner does, leaving a numbered mark after each template's output."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def template(self, template):
        out = super().template(template)
        self.seen.append((clean._template_name(template), clean.TEMPLATE_GAP not in out and out != clean.GAP))
        return out + MARK.format(len(self.seen) - 1)


def inline_templates(path):
    """Counter of (name, rendered) over templates that sit between words of an article's prose line."""
    counts = collections.Counter()
    for fields, wikitext, is_redirect in read_pages(path):
        if classify_page(fields, wikitext, is_redirect):
            continue
        renderer = _MarkingRenderer()
        for line in renderer.render(mwparserfromhell.parse(wikitext)).split("\n"):
            for mark in MARKED.finditer(line):
                before = MARKED.sub("", line[:mark.start()]).replace(clean.GAP, "").replace(clean.TEMPLATE_GAP, "")
                after = MARKED.sub("", line[mark.end():]).replace(clean.GAP, "").replace(clean.TEMPLATE_GAP, "")
                if re.search(r"\w[^.!?]*$", before) and re.match(r"\s*\S", after):
                    counts[renderer.seen[int(mark.group(1))]] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", nargs="?", default="examples/data/enwiki-sample-103pages.xml.bz2")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    counts = inline_templates(args.dump)
    by_name = collections.Counter()
    for (name, _), n in counts.items():
        by_name[name] += n
    rendered = sum(n for (_, ok), n in counts.items() if ok)
    print(f"inline templates in article prose: {sum(counts.values())}, rendered {rendered}, "
          f"left as missing words {sum(counts.values()) - rendered}")
    print(f"{'count':>6}  {'rendered':>8}  name")
    for name, n in by_name.most_common(args.top):
        print(f"{n:>6}  {counts[(name, True)]:>8}  {name}")


if __name__ == "__main__":
    main()
