"""Gold questions no worker can tell apart from real ones: built from the run's own expert-answered items (so
they have the passages, length and shape of the batch's questions), and a bank whose length gives it away refused.
"""
import json
import math

from annotation import hit_pages
from annotation.ledger import REJECTED, ROUND_MTURK, ROUND_VERIFY2, item_id
from annotation.triplets import load_triplets
from picforge.errors import InputError, NothingToDo
from picforge.files import write_atomically

# Best balanced accuracy a single length threshold may reach telling gold from real questions (0.5 is chance).
# A batch of n real questions gets 0.5 + SMALL_BATCH_SPREAD / sqrt(n) when that is higher: with a few questions
# chance alone reaches 0.65 (a bank drawn from the same items, measured over the 103-page sample's expert answers).
MAX_LENGTH_SEPARATION = 0.65
SMALL_BATCH_SPREAD = 0.7
PARAPHRASE, SAME_MEANING = hit_pages.PARAPHRASE, hit_pages.SAME_MEANING


def question_words(question):
    """How many words a worker reads for one PageQuestion (its passages and paraphrase)."""
    return sum(len(p.text.split()) for p in question.passages) + len(question.paraphrase.split())


def length_separation(gold_lengths, real_lengths):
    """The best balanced accuracy with which one threshold on length tells gold from real questions (either side)."""
    best = 0.5
    for threshold in sorted(set(gold_lengths) | set(real_lengths)):
        gold_below = sum(n <= threshold for n in gold_lengths) / len(gold_lengths)
        real_above = sum(n > threshold for n in real_lengths) / len(real_lengths)
        accuracy = (gold_below + real_above) / 2
        best = max(best, accuracy, 1 - accuracy)
    return best


def allowed_separation(real_count):
    """The most length separation a batch of `real_count` real questions accepts (see MAX_LENGTH_SEPARATION)."""
    return max(MAX_LENGTH_SEPARATION, 0.5 + SMALL_BATCH_SPREAD / math.sqrt(real_count))


def refuse_telltale_gold(gold_questions, real_questions, source):
    """InputError when a length threshold separates the gold questions from the real ones with balanced accuracy
    above `allowed_separation`: a worker could answer the gold right and anything at all to the rest."""
    gold = [question_words(q) for q in gold_questions]
    real = [question_words(q) for q in real_questions]
    if not gold or not real:
        return
    separation, allowed = length_separation(gold, real), allowed_separation(len(real))
    if separation > allowed:
        raise InputError(f"{source}: its questions ({min(gold)}-{max(gold)} words) differ in length from this batch's "
                         f"{len(real)} real ones ({min(real)}-{max(real)} words): one length threshold tells them "
                         f"apart with balanced accuracy {separation:.2f} (above {allowed:.2f}), so a worker "
                         "could spot every check; build the bank from the run's own items with "
                         "`picforge annotate mturk gold --run RUN --out GOLD.jsonl`")


def settled(q):
    """Accepted expert annotations of triplets not stale whose q1/q2/q3 no verification round rejected."""
    rejected = {d["item_id"] for rnd in (ROUND_MTURK, ROUND_VERIFY2) for d in q.decisions(round=rnd, decision=REJECTED)}
    stale = q.stale()
    return [a for a in q.expert_annotations() if a["triplet_id"] not in stale
            and not any(item_id(a["triplet_id"], k) in rejected for k in ("q1", "q2", "q3"))]


def gold_records(annotations, triplets):
    """Gold records of expert-answered triplets: each triplet's q1 paraphrase (yes), its q3 (the expert's answer)
    and a constructed no: its page-2 passage with the q2 paraphrase written for another phrase."""
    ordered = sorted(annotations, key=lambda a: a["triplet_id"])
    records = []
    for n, annotation in enumerate(ordered):
        tid, triplet = annotation["triplet_id"], triplets[annotation["triplet_id"]]
        phrase, first, second = triplet["phrase"], triplet["page1"]["passage"], triplet["page2"]["passage"]
        records.append({"gold_id": f"{tid}-q1", "kind": PARAPHRASE, "phrase": phrase, "passage1": first,
                        "paraphrase": annotation["q1"], "answer": True,
                        "explanation": f"An expert wrote '{annotation['q1']}' for '{phrase}' in this passage."})
        records.append({"gold_id": f"{tid}-q3", "kind": SAME_MEANING, "phrase": phrase, "passage1": first,
                        "passage2": second, "answer": bool(annotation["same_meaning"]),
                        "explanation": f"An expert judged that '{phrase}' means "
                                       f"{'the same' if annotation['same_meaning'] else 'different things'} here."})
        other = next((o for o in ordered[n + 1:] + ordered[:n] if o["q2"].lower() != annotation["q2"].lower()
                      and triplets[o["triplet_id"]]["phrase"].lower() != phrase.lower()), None)
        if other is not None:
            records.append({"gold_id": f"{tid}-q2x", "kind": PARAPHRASE, "phrase": phrase, "passage1": second,
                            "paraphrase": other["q2"], "answer": False,
                            "explanation": f"'{other['q2']}' paraphrases '{triplets[other['triplet_id']]['phrase']}', "
                                           f"another phrase, not '{phrase}'."})
    return records


def build_gold_bank(ledger, run_dir, out):
    """Write the gold bank of the run's settled expert answers to `out` (JSON Lines); returns its records."""
    with ledger.read() as q:
        annotations = settled(q)
    if not annotations:
        raise NothingToDo("no accepted expert annotation to build gold questions from; run "
                          "`picforge annotate ingest expert` first")
    records = gold_records(annotations, load_triplets(run_dir, {a["triplet_id"] for a in annotations}))
    if len({r["answer"] for r in records}) < 2:
        raise InputError(f"the {len(records)} gold questions of this run all have the same answer; ingest more expert "
                         "sheets (a bank needs yes and no answers)")
    write_atomically(out, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records))
    return records
