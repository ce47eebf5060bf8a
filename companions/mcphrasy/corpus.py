"""Corpus documents {doc_id, product, category, text}: Amazon reviews in the Ni et al. (2019) JSON-lines layout,
or the mined Wikipedia sentences of a picforge run (page = product)."""
import gzip
import json
import os

from apache_beam.io.filesystems import FileSystems

WIKI_ONE_CATEGORY = "wikipedia"


def row_category(row):
    """The category a review row names itself: `category` (text, or the first of a list) or `main_cat`."""
    value = row.get("category") or row.get("main_cat")
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    return value.strip() if isinstance(value, str) and value.strip() else None


def review_document(line, doc_id, category=None, file_category=None):
    """(reason, document) of one JSON line: 'kept', or why it is skipped ('bad-json', 'no-review-text',
    'no-asin', 'no-category'). The category: `category` if given, else the row's own, else the file's."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return "bad-json", None
    if not isinstance(row, dict):
        return "bad-json", None
    text, product = row.get("reviewText"), row.get("asin")
    if not isinstance(text, str) or not text.strip():
        return "no-review-text", None
    if not isinstance(product, str) or not product.strip():
        return "no-asin", None
    category = category or row_category(row) or file_category
    if not category:
        return "no-category", None
    return "kept", {"doc_id": doc_id, "product": product.strip(), "category": category, "text": " ".join(text.split())}


def file_category(path):
    """The category a Ni et al. (2019) file is named after: `Office_Products_5.json.gz` → `Office Products`."""
    words = [w for w in os.path.basename(path).split(".")[0].split("_") if w]
    if words and words[-1].isdigit():
        words = words[:-1]
    return " ".join(words) or None


def review_lines(path):
    """(doc_id, line, file category) of a reviews file (plain, or gzip by its .gz name; a truncated gzip raises
    EOFError where Beam's own decompression would stop silently); doc_id = file name:line."""
    name, category = os.path.basename(path), file_category(path)
    with FileSystems.open(path, compression_type="uncompressed") as raw_fh:
        fh = gzip.GzipFile(fileobj=raw_fh) if path.endswith(".gz") else raw_fh
        for line_no, raw in enumerate(iter(fh.readline, b""), 1):
            line = raw.decode("utf-8", errors="replace").strip()
            if line:
                yield f"{name}:{line_no}", line, category


def wiki_document(sentence, page_categories):
    """A mined Sentence record as a document: the page is the product, its category from `page_categories`
    ({page_id: category}) or the one corpus-wide category."""
    return {"doc_id": sentence["sentence_id"], "product": str(sentence["page_id"]),
            "category": page_categories.get(sentence["page_id"], WIKI_ONE_CATEGORY), "text": sentence["text"]}


def first_category(page):
    """The first visible category of a cleaned page (the one used as its category), or the corpus-wide one."""
    return page["categories"][0] if page["categories"] else WIKI_ONE_CATEGORY
