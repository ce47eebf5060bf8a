"""Properties of each character- and token-level augmentation, and their determinism with a seed."""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companions.pearl import augment
from picforge.resources import stopwords

WORD = st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-'"),
               min_size=1, max_size=12)
PHRASE = st.lists(WORD, min_size=1, max_size=6).map(" ".join)
SEED = st.integers(min_value=0, max_value=2 ** 32)


def differing(a, b):
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


@given(PHRASE, SEED)
def test_char_swap_exchanges_two_adjacent_letters(phrase, seed):
    out = augment.char_swap(phrase, random.Random(seed))
    if out is None:
        assert not any(a.isalpha() and b.isalpha() and a != b for a, b in zip(phrase, phrase[1:]))
        return
    changed = differing(phrase, out)
    assert len(out) == len(phrase) and len(changed) == 2 and changed[1] == changed[0] + 1
    i = changed[0]
    assert (out[i], out[i + 1]) == (phrase[i + 1], phrase[i]) and phrase[i].isalpha() and phrase[i + 1].isalpha()


@given(PHRASE, SEED)
def test_char_drop_removes_one_letter_and_no_word(phrase, seed):
    out = augment.char_drop(phrase, random.Random(seed))
    if out is None:
        assert all(len(word) < 2 or not any(ch.isalpha() for ch in word) for word in phrase.split())
        return
    assert len(out) == len(phrase) - 1
    assert any(phrase[:i] + phrase[i + 1:] == out and phrase[i].isalpha() for i in range(len(phrase)))
    assert len(out.split(" ")) == len(phrase.split(" ")) and all(out.split(" "))


@given(PHRASE, SEED)
def test_char_insert_adds_one_lower_case_letter_inside_a_word(phrase, seed):
    out = augment.char_insert(phrase, random.Random(seed))
    if out is None:
        return
    assert len(out) == len(phrase) + 1
    assert any(out[:i] + out[i + 1:] == phrase and out[i].islower() for i in range(len(out)))
    assert len(out.split(" ")) == len(phrase.split(" "))


@given(PHRASE, SEED)
def test_char_keyboard_replaces_one_letter_by_a_qwerty_neighbour(phrase, seed):
    out = augment.char_keyboard(phrase, random.Random(seed))
    if out is None:
        return
    changed = differing(phrase, out)
    assert len(out) == len(phrase) and len(changed) == 1
    old, new = phrase[changed[0]], out[changed[0]]
    assert new.lower() in augment.KEYBOARD_NEIGHBOURS[old.lower()] and old.isupper() == new.isupper()


def test_keyboard_neighbours_are_the_adjacent_keys():
    assert set(augment.KEYBOARD_NEIGHBOURS["g"]) == set("tyfhvb")
    assert set(augment.KEYBOARD_NEIGHBOURS["s"]) == set("weadzx")
    assert set(augment.KEYBOARD_NEIGHBOURS["q"]) == set("wa")
    assert all(ch in augment.KEYBOARD_NEIGHBOURS[other] for ch, others in augment.KEYBOARD_NEIGHBOURS.items()
               for other in others)


@given(PHRASE, SEED)
def test_token_swap_exchanges_two_adjacent_tokens(phrase, seed):
    out = augment.token_swap(phrase, random.Random(seed))
    before = phrase.split(" ")
    if out is None:
        assert len(set(before)) <= 1
        return
    after = out.split(" ")
    changed = differing(before, after)
    assert sorted(before) == sorted(after) and len(changed) == 2 and changed[1] == changed[0] + 1
    assert (after[changed[0]], after[changed[1]]) == (before[changed[1]], before[changed[0]])


SYNONYMS = {"big": ["large", "great"], "car": ["automobile"], "the": ["angstrom"]}


@given(st.lists(st.sampled_from(["big", "Big", "car", "CAR", "the", "red", "of"]), min_size=1, max_size=5), SEED)
def test_synonym_replace_changes_one_content_word_to_a_synonym(tokens, seed):
    phrase = " ".join(tokens)
    tags = ["JJ" if t.lower() == "big" else "NN" for t in tokens]
    out = augment.synonym_replace(phrase, random.Random(seed), lambda t, tag: SYNONYMS.get(t.lower(), []), tags)
    if out is None:
        assert not any(t.lower() in ("big", "car") for t in tokens)
        return
    after = out.split(" ")
    changed = differing(tokens, after)
    assert len(after) == len(tokens) and len(changed) == 1
    old, new = tokens[changed[0]], after[changed[0]]
    assert old.lower() not in stopwords() and new.lower() in SYNONYMS[old.lower()]
    assert (new.isupper() == old.isupper()) and new[0].isupper() == old[0].isupper()


@settings(max_examples=50)
@given(PHRASE, SEED)
def test_augment_phrase_is_reproducible_and_records_each_kind_once(phrase, seed):
    sources = {"synonym-wordnet": lambda t, tag: SYNONYMS.get(t.lower(), [])}
    tags = ["NN"] * len(phrase.split(" "))
    first = augment.augment_phrase(phrase, seed, sources, tags)
    assert first == augment.augment_phrase(phrase, seed, sources, tags)
    kinds = [a["kind"] for a in first]
    assert len(kinds) == len(set(kinds)) and set(kinds) <= set(augment.KINDS)
    assert all(a["text"] != phrase for a in first)


def test_a_kind_does_not_depend_on_the_other_kinds_or_the_seed_stream_of_others():
    with_synonyms = augment.augment_phrase("The New York Times", 7, {"synonym-wordnet": lambda t, tag: ["fresh"]},
                                           ["DT", "NNP", "NNP", "NNP"])
    without = augment.augment_phrase("The New York Times", 7)
    assert [a for a in with_synonyms if a["kind"] != "synonym-wordnet"] == without


def test_seeds_change_the_augmentations():
    texts = {tuple(a["text"] for a in augment.augment_phrase("the New York Times", seed)) for seed in range(5)}
    assert len(texts) > 1


def test_the_indefinite_article_fits_the_word_swapped_in():
    assert augment.synonym_replace("comes to an end", random.Random(0), lambda t, tag: ["close"] if t == "end" else [],
                                   ["VBZ", "IN", "DT", "NN"]) == "comes to a close"
    assert augment.synonym_replace("An apple", random.Random(0), lambda t, tag: ["pear"], ["DT", "NN"]) == "A pear"
    assert [augment.indefinite_article(w) for w in ("hour", "unit", "end", "one", "umbrella", "European", "box")] == \
        ["an", "a", "an", "a", "an", "a", "a"]


def test_synonyms_are_asked_with_the_tag_of_the_word_in_context():
    asked = []
    augment.synonym_replace("the bank of rivers", random.Random(0), lambda t, tag: asked.append((t, tag)) or [],
                            ["DT", "NN", "IN", "NNS"])
    assert asked == [("bank", "NN"), ("rivers", "NNS")]
