"""Gold questions that are truth and that no worker can tell apart from real ones: answers settled by a step after the
one they check (round-2 verifiers unanimous, a previous run's release), never an answer a batch verifies; no gold
question of a triplet the batch verifies and no paraphrase shown twice in a batch; a bank whose length gives it away
refused.
"""
import glob
import json
import math
import os
import random
from collections import Counter

from annotation import rules
from annotation.mturk import hit_pages
from picforge.ledger import ROUND_MTURK, ROUND_VERIFY2
from annotation.triplets import load_triplets
from picforge.errors import InputError
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


# Where a gold answer may come from: a step after the one being checked settled it (never an answer a batch verifies).
ROUND2_UNANIMOUS = "round 2: every expert verifier agreed"
PILOT_UNANIMOUS = "expert pilot before round 1 (`export verify2 --pilot`): every expert verifier agreed"
PREVIOUS_RELEASE = "a previous run's release"
RELEASE_CONFIG = "PR-pass"  # every paraphrase a release kept, in its passage (query = paraphrase, answer = phrase)
RELEASE_SENSES = "PSD"      # a phrase in two paragraphs where it means different things (kept Q3 = No)
PSD_JOINT = "\n\n"          # release.build.psd_examples joins its two paragraphs with this


def round2_settled(q, run_dir):
    """Gold records of this run's items whose round-2 (or pilot) expert verifiers all gave the same answer (endorsing the expert's
    annotation or not): a paraphrase that fits (yes) or does not (no), a same-meaning answer, each with its source."""
    annotations, stale, round1 = {a["triplet_id"]: a for a in q.expert_annotations()}, q.stale(), \
        q.decision_map(ROUND_MTURK)
    decisions = [d for d in q.decisions(round=ROUND_VERIFY2) if d["triplet_id"] in annotations
                 and d["triplet_id"] not in stale]
    triplets = load_triplets(run_dir, {d["triplet_id"] for d in decisions}) if decisions else {}
    records = []
    for d in decisions:
        tid, kind, annotation = d["triplet_id"], d["kind"], annotations[d["triplet_id"]]
        endorsed = {rules.endorses(kind, vote, annotation["same_meaning"]) for _, vote in d["detail"]["votes"]}
        if len(endorsed) != 1:
            continue
        endorsed, triplet = endorsed.pop(), triplets[tid]
        source = f"{ROUND2_UNANIMOUS if d['item_id'] in round1 else PILOT_UNANIMOUS} ({d['reason']})"
        if kind == "q3":
            same = annotation["same_meaning"] == endorsed
            records.append({"gold_id": f"{tid}-q3", "kind": SAME_MEANING, "phrase": triplet["phrase"],
                            "passage1": triplet["page1"]["passage"], "passage2": triplet["page2"]["passage"],
                            "answer": same, "triplet_id": tid, "source": source,
                            "explanation": f"Expert verifiers judged that '{triplet['phrase']}' means "
                                           f"{'the same' if same else 'different things'} here."})
        else:
            page = triplet["page1" if kind == "q1" else "page2"]
            records.append(paraphrase_record(f"{tid}-{kind}", tid, triplet["phrase"], page["passage"],
                                             annotation[kind], endorsed, source))
    return records


def paraphrase_record(gold_id, triplet_id, phrase, passage, paraphrase, answer, source):
    """A paraphrase gold record whose answer `source` settled."""
    verdict = "can" if answer else "cannot"
    return {"gold_id": gold_id, "kind": PARAPHRASE, "phrase": phrase, "passage1": passage, "paraphrase": paraphrase,
            "answer": answer, "triplet_id": triplet_id, "source": source,
            "explanation": f"'{paraphrase}' {verdict} replace '{phrase}' in this passage."}


def release_settled(release_dir):
    """Gold records of what a previous run's release kept: each PR-pass paraphrase in its passage (yes), and each PSD
    example's phrase in its two paragraphs (PSD holds only kept Q3 = No: different meanings, answer no)."""
    records = []
    for config, make in ((RELEASE_CONFIG, release_paraphrase), (RELEASE_SENSES, release_senses)):
        paths = sorted(glob.glob(os.path.join(release_dir, config, "*.json")))
        if not paths and config == RELEASE_CONFIG:
            raise InputError(f"{release_dir}: no {config}/*.json in it; give the folder `picforge build` wrote for a "
                             "previous run (it holds MANIFEST.json and PR-pass/)")
        for path in paths:
            with open(path, encoding="utf-8") as fh:
                for line_no, line in enumerate(fh, start=1):
                    try:
                        row = json.loads(line)
                        records.append(make(row, f"{PREVIOUS_RELEASE} ({release_dir}, {config})"))
                    except (json.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError, ValueError):
                        raise InputError(f"{path}: line {line_no}: not a {config} example (id, context, query, "
                                         "answers) as `picforge build` writes it; give an unmodified release") from None
    return records


def release_paraphrase(row, source):
    """The paraphrase gold record (yes) of a PR-pass example."""
    start, phrase = row["answers"]["answer_start"][0], row["answers"]["text"][0]
    return paraphrase_record(f"release:{row['id']}", row["id"].rsplit("-", 1)[0], phrase,
                             release_passage(row["context"], start), row["query"], True, source)


def release_senses(row, source):
    """The same-meaning gold record (no) of a PSD example: its two paragraphs, each holding the phrase once."""
    phrase = row["answers"]["text"][0]
    first, second = row["context"].split(PSD_JOINT, 1)
    passages = [release_passage(text, text.lower().index(phrase.lower())) for text in (first, second)]
    return {"gold_id": f"release:psd:{row['id']}", "kind": SAME_MEANING, "phrase": phrase, "passage1": passages[0],
            "passage2": passages[1], "answer": False, "triplet_id": row["id"].rsplit("-", 1)[0], "source": source,
            "explanation": f"'{phrase}' means different things in these two passages."}


def release_passage(context, start):
    """The 5-sentence passage around character `start` of a released context, cut as stage select cuts a triplet's
    passages (so a gold question is as long as a real one)."""
    from picforge.sentence_split import passage_window, split_sentences   # Punkt: only when a release is read
    sentences, offset, holder = split_sentences(context), 0, 0
    for number, sentence in enumerate(sentences):
        found = context.find(sentence, offset)
        if 0 <= found <= start:
            holder, offset = number, found + len(sentence)
    first, last = passage_window(holder, len(sentences))
    return " ".join(sentences[first:last])


def with_constructed_nos(records):
    """The records with as many no answers as yes, as near as the settled paraphrases allow. Settled paraphrases that
    fit (a seeded order) are taken two by two: the first's paraphrase on the second's phrase and passage makes one
    constructed no, both of their yes records left out, so no paraphrase and no phrase-in-passage of the bank is
    shown twice (a recurring paraphrase, shown with two phrases, would give the no away). Each pair turns two yes
    answers into one no, so (yes - no) / 3 pairs balance the bank; the other paraphrases stay yes."""
    yes = sorted((r for r in records if r["kind"] == PARAPHRASE and r["answer"]), key=lambda r: r["gold_id"])
    random.Random("constructed-no").shuffle(yes)
    kept = [r for r in records if not (r["kind"] == PARAPHRASE and r["answer"])]
    answers = Counter(r["answer"] for r in records)
    wanted = round((answers[True] - answers[False]) / 3)
    repeated = {p for p, n in Counter(r["paraphrase"].lower() for r in yes).items() if n > 1}
    made, index = 0, 0
    while index < len(yes):
        donor, host = yes[index], yes[index + 1] if index + 1 < len(yes) else None
        if made >= wanted or host is None or donor["phrase"].lower() == host["phrase"].lower() \
                or donor["paraphrase"].lower() in repeated:
            kept.append(donor)
            index += 1
            continue
        kept.append(paraphrase_record(
            f"{host['gold_id']}-x", host["triplet_id"], host["phrase"], host["passage1"], donor["paraphrase"], False,
            f"constructed: '{donor['paraphrase']}' fits '{donor['phrase']}', another phrase ({donor['source']})"))
        made, index = made + 1, index + 2
    return sorted(kept, key=lambda r: r["gold_id"])


def build_gold_bank(ledger, run_dir, out, release_dirs=()):
    """Write the gold bank of answers settled after the step they check (round-2 verifiers unanimous in this run,
    paraphrases a previous run's release kept) to `out` (JSON Lines); returns its records."""
    with ledger.read() as q:
        records = round2_settled(q, run_dir)
    for release_dir in release_dirs:
        records += release_settled(release_dir)
    if not records:
        raise InputError("no settled answer to build gold questions from: this run has no round-2 or pilot item on "
                         "which every expert verifier agreed, and no --from-release was given (answers a batch still "
                         f"verifies are never gold); next: picforge annotate export verify2 --run {run_dir} "
                         "--verifiers V1,V2 --pilot N (experts settle N triplets before round 1), or picforge "
                         f"annotate mturk gold --run {run_dir} --from-release PREVIOUS_RELEASE --out {out}, with the "
                         "folder `picforge build` wrote for an earlier run")
    records = with_constructed_nos(records)
    if len({r["answer"] for r in records}) < 2:
        raise InputError(f"the {len(records)} settled gold questions all have the same answer; add settled items "
                         "(another --from-release, or more round-2 verification) so a bank has yes and no answers")
    write_atomically(out, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records))
    return records


def gold_for_batch(bank, annotations):
    """(usable records, {reason: count} left out) of a gold bank for a batch verifying `annotations` ({triplet_id:
    expert annotation with its phrase}). Left out: a question of a triplet the batch verifies (its `triplet_id`, which
    `mturk gold` writes), which would be one of its real questions; and a paraphrase the batch already shows with
    another phrase (a real question or an earlier gold question), so no paraphrase is shown with two phrases (the cue
    that gave a constructed no away to a worker who never reads the passages)."""
    shown = {}
    for annotation in annotations.values():
        for kind in ("q1", "q2"):
            shown.setdefault(annotation[kind].lower(), set()).add(annotation["phrase"].lower())
    usable, left_out = [], Counter()
    for record in sorted(bank, key=lambda r: r["gold_id"]):
        paraphrase = (record.get("paraphrase") or "").lower() if record["kind"] == PARAPHRASE else None
        if record.get("triplet_id") in annotations:
            left_out["from a triplet this batch verifies"] += 1
        elif paraphrase is not None and shown.get(paraphrase, set()) - {record["phrase"].lower()}:
            left_out["its paraphrase is shown with another phrase in the batch"] += 1
        else:
            usable.append(record)
            if paraphrase is not None:
                shown.setdefault(paraphrase, set()).add(record["phrase"].lower())
    return usable, dict(left_out)


def largest_limit(bank, annotations, need):
    """The most of `annotations` (from the first) one batch can verify while at least `need` questions of the bank,
    yes and no answers among them, stay usable (`gold_for_batch`); 0 when not even one can."""
    def enough(count):
        usable, _ = gold_for_batch(bank, {a["triplet_id"]: a for a in annotations[:count]})
        return len(usable) >= need and len({r["answer"] for r in usable}) == 2
    low, high = 0, len(annotations)
    while low < high:   # usable questions only shrink as the batch grows: the last count that is enough
        middle = (low + high + 1) // 2
        low, high = (middle, high) if enough(middle) else (low, middle - 1)
    return low
