"""PEARL's character- and token-level augmentations: pure functions of a phrase and a seeded random source.

Each returns the augmented text, or None when the phrase offers no place for it (a one-token phrase cannot
have two tokens swapped). `augment_phrase` applies every kind once, each with its own random stream derived
from (seed, kind, phrase), so a phrase's augmentations do not depend on which other kinds or phrases ran.
"""
import hashlib
import random
import re
import string

from picforge.resources import stopwords

QWERTY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
ROW_OFFSETS = (0.0, 0.25, 0.75)  # how far each row is shifted right on a standard keyboard, in keys
CHARACTER_KINDS = ("char-swap", "char-drop", "char-insert", "char-keyboard")
TOKEN_KINDS = ("token-swap", "synonym-wordnet", "synonym-embedding")
PARAPHRASE_KIND = "paraphrase"
KINDS = CHARACTER_KINDS + TOKEN_KINDS + (PARAPHRASE_KIND,)


def _keyboard_neighbours():
    """{letter: the letters whose keys touch its key on a QWERTY keyboard (left, right, and the staggered rows
    above and below)}."""
    position = {ch: (row, col + ROW_OFFSETS[row]) for row, keys in enumerate(QWERTY_ROWS) for col, ch in enumerate(keys)}

    def touching(a, b):
        (row_a, x_a), (row_b, x_b) = position[a], position[b]
        return abs(x_a - x_b) == 1 if row_a == row_b else abs(row_a - row_b) == 1 and abs(x_a - x_b) < 1

    return {ch: "".join(sorted(other for other in position if other != ch and touching(ch, other)))
            for ch in position}


KEYBOARD_NEIGHBOURS = _keyboard_neighbours()


def rng_for(seed, kind, phrase):
    """A random source that depends only on (seed, kind, phrase)."""
    digest = hashlib.sha256(f"{seed}\x00{kind}\x00{phrase}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _word_letter_positions(phrase):
    """Indices of letters inside words of at least two characters (so no augmentation deletes a word)."""
    positions, start = [], None
    for i, ch in enumerate(phrase + " "):
        if ch.isspace():
            if start is not None and i - start >= 2:
                positions.extend(j for j in range(start, i) if phrase[j].isalpha())
            start = None
        elif start is None:
            start = i
    return positions


def char_swap(phrase, rng):
    """Swap two adjacent, different letters of one word."""
    places = [i for i in _word_letter_positions(phrase)
              if i + 1 < len(phrase) and phrase[i + 1].isalpha() and phrase[i] != phrase[i + 1]]
    if not places:
        return None
    i = rng.choice(places)
    return phrase[:i] + phrase[i + 1] + phrase[i] + phrase[i + 2:]


def char_drop(phrase, rng):
    """Drop one letter of a word of at least two characters."""
    places = _word_letter_positions(phrase)
    if not places:
        return None
    i = rng.choice(places)
    return phrase[:i] + phrase[i + 1:]


def char_insert(phrase, rng):
    """Insert a random lower-case letter next to a letter of a word."""
    places = _word_letter_positions(phrase)
    if not places:
        return None
    i = rng.choice(places) + rng.randint(0, 1)
    return phrase[:i] + rng.choice(string.ascii_lowercase) + phrase[i:]


def char_keyboard(phrase, rng):
    """Replace one letter by a QWERTY neighbour (keeping its case)."""
    places = [i for i in _word_letter_positions(phrase) if phrase[i].lower() in KEYBOARD_NEIGHBOURS]
    if not places:
        return None
    i = rng.choice(places)
    new = rng.choice(KEYBOARD_NEIGHBOURS[phrase[i].lower()])
    return phrase[:i] + (new.upper() if phrase[i].isupper() else new) + phrase[i + 1:]


def token_swap(phrase, rng):
    """Swap two adjacent, different tokens."""
    tokens = phrase.split(" ")
    places = [i for i in range(len(tokens) - 1) if tokens[i] != tokens[i + 1]]
    if not places:
        return None
    i = rng.choice(places)
    tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    return " ".join(tokens)


def _match_case(word, like):
    """`word` with the capitalisation pattern of `like` (Title, UPPER or as is)."""
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


AN_SOUNDS = re.compile(r"[aeio]|u(?!ni|s[aeu]|ti|ro|ra|ku)|hou?r|hon|heir", re.IGNORECASE)  # "an hour", "a unit"
ONE_SOUNDS = re.compile(r"one?\b|once|eu|ewe", re.IGNORECASE)  # "a one-off", "a European"


def indefinite_article(word):
    """"an" before a vowel sound, else "a" (by spelling: "an hour", "a unit", "a one", "an end")."""
    return "an" if AN_SOUNDS.match(word) and not ONE_SOUNDS.match(word) else "a"


def synonym_replace(phrase, rng, synonyms, word_tags):
    """Replace one word that is not a stopword by one of `synonyms(word, tag)` (a list of other words), keeping
    the word's case and making an "a"/"an" before it fit the new word; `word_tags` holds the spaCy tag of each
    space-separated word ("" when it is several tokens)."""
    tokens = phrase.split(" ")
    options = [(i, candidates) for i, (token, tag) in enumerate(zip(tokens, word_tags))
               if token.lower() not in stopwords() and (candidates := synonyms(token, tag))]
    if not options:
        return None
    i, candidates = rng.choice(options)
    tokens[i] = _match_case(rng.choice(candidates), tokens[i])
    if i and tokens[i - 1].lower() in ("a", "an"):
        tokens[i - 1] = _match_case(indefinite_article(tokens[i]), tokens[i - 1])
    return " ".join(tokens)


AUGMENTERS = {"char-swap": char_swap, "char-drop": char_drop, "char-insert": char_insert,
              "char-keyboard": char_keyboard, "token-swap": token_swap}


def augment_phrase(phrase, seed, synonym_sources=None, word_tags=()):
    """[{kind, text}]: one augmentation of each character kind, token-swap and each synonym source that
    applies and changes the phrase. `synonym_sources` maps a kind (synonym-wordnet, synonym-embedding) to
    its `synonyms(word, tag)`; `word_tags` are the tags of the phrase's words in context."""
    augmenters = dict(AUGMENTERS)
    for kind, synonyms in (synonym_sources or {}).items():
        augmenters[kind] = lambda p, rng, synonyms=synonyms: synonym_replace(p, rng, synonyms, word_tags)
    out = []
    for kind, augmenter in augmenters.items():
        text = augmenter(phrase, rng_for(seed, kind, phrase))
        if text is not None and text != phrase:
            out.append({"kind": kind, "text": text})
    return out
