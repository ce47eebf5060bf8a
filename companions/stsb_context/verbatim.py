"""Finding the target phrase verbatim inside a generated context."""

SENTENCE_END = ".!?"


def phrase_forms(phrase, exact=False):
    """The spellings that count as verbatim: the phrase itself, or (unless `exact`) without its final full
    stop and with its first letter in either case, since it now sits inside a longer sentence."""
    forms = [phrase.strip()]
    if not exact:
        core = phrase.strip().rstrip(SENTENCE_END).rstrip()
        if core:
            forms += [core, core[0].swapcase() + core[1:]]
    return list(dict.fromkeys(f for f in forms if f))


def _standalone(text, start, end):
    """True when text[start:end] is not glued to letters or digits on either side."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not before.isalnum() and not after.isalnum()


def locate(context, phrase, exact=False):
    """(start, matched text) of the first verbatim occurrence of `phrase` in `context`, or None."""
    for form in phrase_forms(phrase, exact):
        start = context.find(form)
        while start != -1:
            if _standalone(context, start, start + len(form)):
                return start, form
            start = context.find(form, start + 1)
    return None
