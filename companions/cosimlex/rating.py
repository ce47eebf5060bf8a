"""The two-page rating task: forms in which each annotator sees one context of each pair, rendered as
MTurk HTMLQuestion pages and as standalone HTML forms."""
import html
import random
import string
from importlib import resources

SCALE = range(0, 7)
VARIANTS = ("A", "B")


def rating_item(selection, context_no):
    """What annotators rate: one pair in one of its two contexts."""
    context = selection[f"context{context_no}"]
    return {
        "item_id": f"{selection['pair_id']}#{context_no}", "pair_id": selection["pair_id"],
        "context_no": context_no, "word1": selection["word1"], "word2": selection["word2"],
        "text": context["text"], "word1_start": context["word1_start"], "word1_end": context["word1_end"],
        "word2_start": context["word2_start"], "word2_end": context["word2_end"],
    }


def rating_forms(selections, pairs_per_form, seed=0):
    """Forms in complementary couples: per chunk of pairs, form A holds context 1 of every other pair and
    context 2 of the rest, form B the opposite; so each form shows one context of each of its pairs, and
    an annotator who fills only one form of a couple never rates both contexts of a pair."""
    ordered = sorted(selections, key=lambda s: s["pair_no"])
    forms = []
    for chunk, first in enumerate(range(0, len(ordered), pairs_per_form), start=1):
        pairs = ordered[first:first + pairs_per_form]
        for variant in VARIANTS:
            form_id = f"{chunk:04d}{variant}"
            flip = VARIANTS.index(variant)
            items = [rating_item(s, 1 + (position + flip) % 2) for position, s in enumerate(pairs)]
            random.Random(f"{seed}:{form_id}").shuffle(items)
            other = VARIANTS[1 - flip]
            forms.append({"form_id": form_id, "chunk": chunk, "variant": variant,
                          "exclusive_with": f"{chunk:04d}{other}", "items": items})
    return forms


def annotator_assignments(forms, annotators):
    """Which forms each recruited annotator fills: annotators alternate between the A and B forms of every
    chunk, so each rates one context of every pair and both contexts get the same number of annotators."""
    return [{"annotator": name, "variant": VARIANTS[number % 2],
             "forms": [f["form_id"] for f in forms if f["variant"] == VARIANTS[number % 2]]}
            for number, name in enumerate(annotators)]


def bold_targets(item):
    """The item's text, HTML-escaped, with the two target words in <b>."""
    text = item["text"]
    pieces, at = [], 0
    for start, end in sorted([(item["word1_start"], item["word1_end"]), (item["word2_start"], item["word2_end"])]):
        pieces += [html.escape(text[at:start]), '<b class="target">', html.escape(text[start:end]), "</b>"]
        at = end
    pieces.append(html.escape(text[at:]))
    return "".join(pieces)


def item_pages(number, item):
    """Page 1 (plain context, two inspired words) and page 2 (context with the pair bold, rating 0-6)."""
    esc = html.escape
    field = f"item{number}"
    scale = "".join(
        f'<label><input type="radio" name="{field}_rating" value="{value}"> {value}</label>' for value in SCALE)
    return f"""<input type="hidden" name="{field}_id" value="{esc(item['item_id'])}">
<section class="page page1" id="{field}_page1" hidden>
<p>Read the following text and write down two words inspired by it:</p>
<div class="context">{esc(item['text'])}</div>
<p><label>First word: <input type="text" name="{field}_inspired1" autocomplete="off"></label></p>
<p><label>Second word: <input type="text" name="{field}_inspired2" autocomplete="off"></label></p>
</section>
<section class="page page2" id="{field}_page2" hidden>
<p>Read the text again, then rate how similar the words <b>{esc(item['word1'])}</b> and
<b>{esc(item['word2'])}</b> are <b>within this specific text</b>:</p>
<div class="context">{bold_targets(item)}</div>
<p>0 = not similar at all, 6 = extremely similar</p>
<div class="scale" role="radiogroup">{scale}</div>
</section>"""


IDENTITY_PAGE = """<section class="page identity" hidden>
<p><label>Your annotator code: <input type="text" name="worker_id" autocomplete="off"></label></p>
<p>Use the same code on every form you fill in.</p>
</section>"""
MTURK_HIDDEN = '<input type="hidden" name="assignmentId" id="assignmentId" value="">'


def render_form(form, mode, lang="en"):
    """The form as one self-contained HTML page; `mode` is "mturk" (posts to MTurk's externalSubmit)
    or "standalone" (asks for an annotator code and gives the answers as a JSON file)."""
    template = string.Template(
        resources.files(__package__).joinpath("data", "cosimlex_rating.html").read_text(encoding="utf-8"))
    pages = [item_pages(number, item) for number, item in enumerate(form["items"], start=1)]
    if mode == "standalone":
        pages.insert(0, IDENTITY_PAGE)
    return template.substitute(
        lang=html.escape(lang), mode=mode, form_id=html.escape(form["form_id"]),
        hidden=MTURK_HIDDEN if mode == "mturk" else "", pages="\n".join(pages))
