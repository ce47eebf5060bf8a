"""The generation prompt of the SLICE paper (Section 4.2) and its seeded start letter."""
import random
import string

PROMPT_TEMPLATE = (
    "Please provide a context to the given phrase, insert it into a long sentence, place it as part of the "
    "larger sentence and use the phrase verbatim. The sentence should also start with the letter {letter} "
    "the phrase is: {phrase}"
)


def start_letter(seed, pair_id):
    """A letter drawn uniformly from A-Z, fixed by (seed, pair) so adding rows never changes other pairs' letters."""
    return random.Random(f"{seed}:{pair_id}").choice(string.ascii_uppercase)


def build_prompt(phrase, letter):
    """The paper's prompt for one target phrase and start letter."""
    return PROMPT_TEMPLATE.format(letter=letter, phrase=phrase)


def chat_messages(prompt):
    """The chat-completions `messages` carrying one prompt."""
    return [{"role": "user", "content": prompt}]
