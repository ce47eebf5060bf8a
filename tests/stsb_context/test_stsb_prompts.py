"""The paper's prompt, seeded uniform start letters and verbatim phrase location."""
import collections
import string

from companions.stsb_context import prompts, verbatim


def test_prompt_is_the_papers_wording():
    assert prompts.build_prompt("A man is slicing a cucumber.", "Q") == (
        "Please provide a context to the given phrase, insert it into a long sentence, place it as part of the "
        "larger sentence and use the phrase verbatim. The sentence should also start with the letter Q the "
        "phrase is: A man is slicing a cucumber.")
    assert prompts.chat_messages("hi") == [{"role": "user", "content": "hi"}]


def test_letters_are_seeded_per_pair_and_uniform():
    ids = [f"MSRvid-2012test-{i:04d}" for i in range(13_000)]
    letters = [prompts.start_letter(7, i) for i in ids]
    assert letters == [prompts.start_letter(7, i) for i in ids]
    assert letters != [prompts.start_letter(8, i) for i in ids]
    counts = collections.Counter(letters)
    assert set(counts) == set(string.ascii_uppercase)
    # 500 expected per letter; a binomial sd is ~22, so 400..600 is 4.5 sd either way
    assert all(400 <= n <= 600 for n in counts.values()), counts


def test_locate_allows_sentence_case_and_final_stop():
    context = "Catching sight of the ocean, I noticed a group of boys are playing soccer on the beach, loudly."
    start, found = verbatim.locate(context, "A group of boys are playing soccer on the beach.")
    assert found == "a group of boys are playing soccer on the beach"
    assert context[start:start + len(found)] == found and start == 39


def test_locate_prefers_the_full_sentence_and_respects_word_edges():
    context = "Yesterday we said: A man cuts an onion. Then we left."
    assert verbatim.locate(context, "A man cuts an onion.") == (19, "A man cuts an onion.")
    assert verbatim.locate("He saw a mango tree.", "A man.") is None
    assert verbatim.locate("Blue and red plane flying.", "A blue and red airplane.") is None


def test_exact_match_requires_the_sentence_as_written():
    context = "Over the hill a man is slicing a cucumber near the stove."
    assert verbatim.locate(context, "A man is slicing a cucumber.", exact=True) is None
    assert verbatim.locate(context, "A man is slicing a cucumber.") == (14, "a man is slicing a cucumber")
