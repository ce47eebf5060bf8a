"""Guidelines for annotators, shipped as Markdown templates and rendered to (escaped) HTML."""
import html
import os
import re
from importlib import resources

from picforge.files import write_atomically

_EMPHASIS = (
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"\*(.+?)\*"), r"<em>\1</em>"),
)


def template(name):
    """The Markdown text of `annotation/templates/<name>.md`."""
    return resources.files("annotation").joinpath("templates", f"{name}.md").read_text(encoding="utf-8")


def _inline(text):
    """Escaped text with `code` spans (taken literally), **strong** and *em*."""
    parts = []
    for index, part in enumerate(text.split("`")):
        part = html.escape(part, quote=True)
        if index % 2:
            parts.append(f"<code>{part}</code>")
            continue
        for pattern, replacement in _EMPHASIS:
            part = pattern.sub(replacement, part)
        parts.append(part)
    return "".join(parts)


def markdown_to_html(markdown, title):
    """HTML page for the Markdown subset the templates use (headings, lists, paragraphs, emphasis, code).

    All text is HTML-escaped before markup is added, so passages quoted in guidelines stay text.
    """
    body, paragraph, in_list = [], [], False

    def flush():
        nonlocal in_list
        if paragraph:
            body.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if in_list:
            body.append("</ul>")
            in_list = False

    for line in markdown.splitlines():
        stripped = line.strip()
        heading = re.match(r"(#{1,3}) (.*)", stripped)
        if not stripped or heading:
            flush()
            if heading:
                level = len(heading.group(1))
                body.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif stripped.startswith("- "):
            if paragraph or not in_list:
                flush()
                body.append("<ul>")
                in_list = True
            body.append(f"<li>{_inline(stripped[2:])}</li>")
        elif in_list and line.startswith("  "):
            body[-1] = body[-1][:-len("</li>")] + " " + _inline(stripped) + "</li>"
        else:
            paragraph.append(stripped)
    flush()
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_guidelines(name, out_dir):
    """Write `<name>.md` and `<name>.html` into `out_dir`; returns both paths."""
    os.makedirs(out_dir, exist_ok=True)
    markdown = template(name)
    title = markdown.splitlines()[0].lstrip("# ").strip()
    paths = (os.path.join(out_dir, f"{name}.md"), os.path.join(out_dir, f"{name}.html"))
    write_atomically(paths[0], markdown)
    write_atomically(paths[1], markdown_to_html(markdown, title))
    return paths
