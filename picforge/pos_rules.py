"""The coarse POS a spaCy model's `attribute_ruler` assigns, computed without its Matcher (over 10x cheaper).

English pipelines tag with fine-grained Penn tags and let `attribute_ruler` map them (plus word and dependency
exceptions) to POS; noun chunks need only that POS. `PosRules` compiles the ruler's POS patterns into plain
lookups with the ruler's semantics: every pattern is matched against the tagger's and parser's output, and where
several match a token the later pattern wins.
"""
from spacy.attrs import DEP, IS_SPACE, LOWER, ORTH, TAG
from spacy.language import Language
from spacy.strings import get_string_id

FACTORY = "picforge_pos_rules"
FIELDS = ("ORTH", "LOWER", "DEP", "TAG", "IS_SPACE")  # doc.to_array columns, the most selective index key first
COLUMNS = (ORTH, LOWER, DEP, TAG, IS_SPACE)


class UnsupportedPattern(ValueError):
    """A POS pattern this compiler cannot express (operators, regexes, other token attributes)."""


def _ids(key, values):
    """Matcher pattern values as the integers doc.to_array holds (string hashes; 0/1 for IS_SPACE)."""
    return frozenset(int(v) if key == "IS_SPACE" else get_string_id(v) for v in values)


def _allowed_values(key, value):
    """(frozenset of allowed ids, True) or (frozenset of refused ids, False) for one attribute's value."""
    if isinstance(value, (str, bool)):
        return _ids(key, [value]), True
    if isinstance(value, dict) and set(value) == {"IN"}:
        return _ids(key, value["IN"]), True
    if isinstance(value, dict) and set(value) == {"NOT_IN"}:
        return _ids(key, value["NOT_IN"]), False
    raise UnsupportedPattern(f"{key}: {value!r}")


def _token_test(token_pattern):
    """[(column, ids, allowed?)] for one token of a Matcher pattern."""
    unknown = set(token_pattern) - set(FIELDS)
    if unknown:
        raise UnsupportedPattern(f"token attributes {sorted(unknown)}")
    return [(FIELDS.index(key), *_allowed_values(key, value)) for key, value in token_pattern.items()]


def _matches(test, row):
    for column, ids, allowed in test:
        if (row[column] in ids) != allowed:
            return False
    return True


class PosRules:
    """The POS-setting patterns of an attribute_ruler as rules indexed by a value their first token needs."""

    def __init__(self, ruler_patterns):
        self.index = [{} for _ in FIELDS]  # per column: value id -> [(rank, token tests, index, POS)]
        for rank, entry in enumerate(ruler_patterns):
            pos = entry["attrs"].get("POS")
            if pos is None:
                continue
            for pattern in entry["patterns"]:
                tests = [_token_test(token) for token in pattern]
                keys = min(((column, ids) for column, ids, allowed in tests[0] if allowed), default=None)
                if keys is None:
                    raise UnsupportedPattern(f"pattern {pattern!r} names no value its first token must have")
                for value in keys[1]:
                    self.index[keys[0]].setdefault(value, []).append((rank, tests, entry.get("index", 0), pos))

    def __call__(self, doc):
        """Set each token's POS as the attribute_ruler would."""
        rows = doc.to_array(COLUMNS).tolist()
        winners = {}
        for start, row in enumerate(rows):
            for column, rules in enumerate(self.index):
                for rank, tests, index, pos in rules.get(row[column], ()):
                    end = start + len(tests)
                    if not _matches(tests[0], row) or (len(tests) > 1 and (end > len(rows) or not all(
                            _matches(t, r) for t, r in zip(tests[1:], rows[start + 1:end])))):
                        continue
                    target = start + index if index >= 0 else end + index
                    if rank >= winners.get(target, (-1, None))[0]:
                        winners[target] = (rank, pos)
        for target, (_, pos) in winners.items():
            doc[target].pos_ = pos
        return doc


@Language.factory(FACTORY)
def make_pos_rules(nlp, name):
    """The pipeline's attribute_ruler POS patterns as a PosRules component."""
    return PosRules(nlp.get_pipe("attribute_ruler").patterns)


def replace_attribute_ruler(nlp):
    """Swap `nlp`'s attribute_ruler for PosRules when all its POS patterns compile; True if swapped."""
    if "attribute_ruler" not in nlp.pipe_names:
        return False
    try:
        nlp.add_pipe(FACTORY, after="attribute_ruler")
    except UnsupportedPattern:
        return False
    nlp.remove_pipe("attribute_ruler")
    return True
