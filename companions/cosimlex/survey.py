"""The expert survey: one expert per language picks, among a pair's candidates, the contexts where the pair
is most and least similar, says how large a difference they expect, and may delete (never add) text."""
import difflib
import hashlib

from picforge.errors import InputError

SHEET_COLUMNS = ["pair_id", "word1", "word2", "option", "candidate_id", "context", "choice",
                 "expected_difference", "edited_context"]
CHOICES = ("most", "least")
EXPECTED_DIFFERENCE = {0: "none", 1: "small", 2: "moderate", 3: "large"}
MAX_LISTED_PROBLEMS = 5

GUIDELINES = """# CoSimLex expert survey: choosing two contexts per word pair

Each block of rows is one word pair (columns `word1`, `word2`) with up to {per_pair} candidate contexts taken
from Wikipedia. In every context each word of the pair occurs exactly once (in the XLSX sheet it is bold).

For every pair:
1. Mark the context in which the two words feel **most similar in meaning** with `most` in column `choice`,
   and the one in which they feel **least similar** with `least`. Aim for the largest contrast. Judge
   similarity, not relatedness: *cup* and *mug* are similar; *coffee* and *cup* are related but not similar.
2. In `expected_difference` (on either chosen row) write how large a difference in similarity ratings you
   expect between the two: 0 none, 1 small, 2 moderate, 3 large.
3. Optionally make a chosen context easier to read in `edited_context` by **deleting** text (broken
   fragments, asides). Never add or change words, and keep both target words.
4. If no candidate of a pair is usable, leave all of its `choice` cells empty: the pair is left out.

Do not edit the other columns. Save as XLSX or as CSV UTF-8 and send the file back.
"""


def blind_order(candidates):
    """A pair's candidates in a stable order unrelated to which encoder picked them."""
    return sorted(candidates, key=lambda c: hashlib.sha256(c["context_id"].encode("utf-8")).hexdigest())


def sheet_rows(candidates):
    """Sheet rows (one per candidate, pairs in SimLex order) with the target words marked for bolding."""
    by_pair = {}
    for candidate in candidates:
        by_pair.setdefault((candidate["pair_no"], candidate["pair_id"]), []).append(candidate)
    rows = []
    for key in sorted(by_pair):
        for option, c in enumerate(blind_order(by_pair[key]), start=1):
            rows.append({
                "pair_id": c["pair_id"], "word1": c["word1"], "word2": c["word2"], "option": option,
                "candidate_id": c["context_id"], "context": c["context"], "choice": "",
                "expected_difference": "", "edited_context": c["context"],
                "_bold": [(c["word1_start"], c["word1_end"]), (c["word2_start"], c["word2_end"])],
            })
    return rows


def deletion_spans(original, edited, spans):
    """The `spans` of `original` moved into `edited`, or None when the edit adds or changes text, or
    cuts into or glues onto a target word."""
    matcher = difflib.SequenceMatcher(None, original, edited, autojunk=False)
    blocks = []
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag not in ("equal", "delete"):
            return None
        if tag == "equal":
            blocks.append((i1, i2, j1))
    moved = []
    for start, end in spans:
        block = next((b for b in blocks if b[0] <= start and end <= b[1]), None)
        if block is None:
            return None
        new_start = start - block[0] + block[2]
        new_end = new_start + (end - start)
        if (new_start > 0 and edited[new_start - 1].isalnum()) or (new_end < len(edited) and edited[new_end].isalnum()):
            return None
        moved.append((new_start, new_end))
    return moved


def _chosen_context(candidate, row, where):
    """The chosen context after the expert's deletions (struct of a selection record), or a problem text."""
    original = candidate["context"]
    edited = row.get("edited_context", "").strip()
    spans = [(candidate["word1_start"], candidate["word1_end"]), (candidate["word2_start"], candidate["word2_end"])]
    if not edited or edited == original:
        edited, moved = original, spans
    else:
        moved = deletion_spans(original, edited, spans)
        if moved is None:
            return f"{where} column edited_context: the text differs from the context by more than deletions, or " \
                   "a target word was cut; only delete text, keep both words whole (or clear the cell)"
    return {"candidate_id": candidate["context_id"], "page_id": candidate["page_id"], "text": edited,
            "word1_start": moved[0][0], "word1_end": moved[0][1], "word2_start": moved[1][0],
            "word2_end": moved[1][1], "edited": edited != original}


def _pair_selection(pair_rows, candidates, path, expert, problems):
    """The selection record of one pair's rows; None when the expert left the pair out or it has problems."""
    chosen = {}
    differences = set()
    for row_no, row in pair_rows:
        choice = row["choice"].strip().lower()
        if choice in CHOICES:
            if choice in chosen:
                problems.append(f"{path} row {row_no} column choice: a second '{choice}' for pair "
                                f"{row['pair_id']}; mark exactly one most and one least")
                return None
            chosen[choice] = (row_no, row)
        if row["expected_difference"].strip():
            differences.add((row_no, row["expected_difference"].strip()))
    if not chosen:
        return None
    first_row = pair_rows[0][0]
    if len(chosen) != 2:
        problems.append(f"{path} row {first_row}: pair {pair_rows[0][1]['pair_id']} has only a "
                        f"'{next(iter(chosen))}' choice; mark one most and one least (or none to leave it out)")
        return None
    values = {value for _, value in differences}
    if len(values) != 1 or not values.issubset({str(k) for k in EXPECTED_DIFFERENCE}):
        problems.append(f"{path} row {first_row} column expected_difference: pair {pair_rows[0][1]['pair_id']} "
                        f"needs exactly one value 0-3 (found {sorted(values) or 'none'}); write it on one chosen row")
        return None
    contexts = {}
    for choice, (row_no, row) in chosen.items():
        chosen_context = _chosen_context(candidates[row["candidate_id"]], row, f"{path} row {row_no}")
        if isinstance(chosen_context, str):
            problems.append(chosen_context)
            return None
        contexts[choice] = chosen_context
    sample = candidates[pair_rows[0][1]["candidate_id"]]
    most_first = int(hashlib.sha256(sample["pair_id"].encode("utf-8")).hexdigest(), 16) % 2 == 0
    first, second = ("most", "least") if most_first else ("least", "most")
    return {
        "pair_id": sample["pair_id"], "pair_no": sample["pair_no"], "word1": sample["word1"],
        "word2": sample["word2"], "pos": sample["pos"], "simlex": sample["simlex"], "expert": expert,
        "sheet": path, "expected_difference": int(values.pop()), "expected_more_similar": 1 if most_first else 2,
        "context1": contexts[first], "context2": contexts[second],
    }


def read_selection(rows, candidates, path, expert):
    """Selection records from a filled sheet's rows (see sheets.read_sheet); every problem found is
    reported at once, naming the file, row and column."""
    problems = []
    by_pair = {}
    seen = {}
    for row_no, row in rows:
        candidate = candidates.get(row["candidate_id"].strip())
        if candidate is None:
            problems.append(f"{path} row {row_no} column candidate_id: unknown id {row['candidate_id']!r}; "
                            "keep the ids of the exported sheet")
            continue
        if row["candidate_id"] in seen:
            problems.append(f"{path} row {row_no}: candidate {row['candidate_id']} repeats row "
                            f"{seen[row['candidate_id']]}; delete the repeated row")
            continue
        seen[row["candidate_id"]] = row_no
        if row["pair_id"] != candidate["pair_id"] or row["context"].strip() != candidate["context"]:
            problems.append(f"{path} row {row_no}: pair_id or context differs from the exported candidate; "
                            "undo that change (edit edited_context instead)")
            continue
        choice = row["choice"].strip().lower()
        if choice and choice not in CHOICES:
            problems.append(f"{path} row {row_no} column choice: {row['choice']!r}; write most, least or nothing")
            continue
        by_pair.setdefault(candidate["pair_id"], []).append((row_no, row))
    selections = []
    for pair_rows in by_pair.values():
        selection = _pair_selection(pair_rows, candidates, path, expert, problems)
        if selection is not None:
            selections.append(selection)
    if problems:
        more = len(problems) - MAX_LISTED_PROBLEMS
        raise InputError(f"{len(problems)} problem(s): " + "; ".join(problems[:MAX_LISTED_PROBLEMS])
                         + (f"; and {more} more" if more > 0 else ""))
    return selections


def merge_selections(existing, new, replace):
    """Existing selection records updated with new ones; a pair answered differently needs `replace`."""
    merged = {s["pair_id"]: s for s in existing}
    for selection in new:
        old = merged.get(selection["pair_id"])
        if old is not None and not replace and _answer(old) != _answer(selection):
            raise InputError(f"{selection['sheet']}: pair {selection['pair_id']} was already ingested with other "
                             f"answers from {old['sheet']}; pass --replace to take the new answers")
        merged[selection["pair_id"]] = selection
    return sorted(merged.values(), key=lambda s: s["pair_no"])


def _answer(selection):
    return {k: v for k, v in selection.items() if k != "sheet"}
