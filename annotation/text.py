"""Pure text helpers for annotation: find the phrase in a passage, highlight or replace it, compare words."""
import re

WORD = re.compile(r"[0-9a-z]+(?:['’-][0-9a-z]+)*")
# Words too common to count as lexical overlap between a phrase and its paraphrase.
FUNCTION_WORDS = frozenset("a an the of in on at to for and or by with from as".split())
YES, NO = "Y", "N"
_YES_NO = {"y": YES, "yes": YES, "n": NO, "no": NO}


def words(text):
    """Lower-cased word tokens of `text`."""
    return WORD.findall(text.casefold())


def normalize(text):
    """Case- and whitespace-insensitive form of a phrase, for equality checks."""
    return " ".join(words(text))


def shared_words(a, b):
    """Content words `a` and `b` have in common (sorted)."""
    return sorted((set(words(a)) & set(words(b))) - FUNCTION_WORDS)


def yes_no(value):
    """'Y'/'N' for y, yes, n, no in any case; None for anything else."""
    return _YES_NO.get(value.strip().casefold())


def locate_phrase(page, phrase):
    """(start, end) of the phrase occurrence in `page["passage"]` that the triplet points at.

    `char_span` may index the passage or the phrase's sentence; failing both, the first
    case-insensitive whole-word match inside the sentence (or else the passage) is used.
    """
    passage, sentence = page["passage"], page["sentence"]
    start, end = page["char_span"]
    if passage[start:end].casefold() == phrase.casefold():
        return start, end
    offset = passage.find(sentence)
    if offset >= 0 and sentence[start:end].casefold() == phrase.casefold():
        return offset + start, offset + end
    pattern = re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", re.IGNORECASE)
    window = (offset, offset + len(sentence)) if offset >= 0 else (0, len(passage))
    found = pattern.search(passage, *window) or pattern.search(passage)
    if found is None:
        raise ValueError(f"phrase {phrase!r} does not occur in the passage of page {page['page_id']}")
    return found.span()


def highlight(text, span, mark="**"):
    """`text` with the span wrapped in `mark` (Markdown bold by default)."""
    start, end = span
    return f"{text[:start]}{mark}{text[start:end]}{mark}{text[end:]}"


def replace_span(text, span, replacement):
    """`text` with the span replaced (capitalised like the original) and the replacement's new span."""
    start, end = span
    if text[start:start + 1].isupper() and replacement[:1].islower():
        replacement = replacement[0].upper() + replacement[1:]
    return text[:start] + replacement + text[end:], (start, start + len(replacement))
