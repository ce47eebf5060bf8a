"""Expert round (PiC Sec. 3.2): per-annotator sheets out; validated annotations and fix-lists back in."""
import dataclasses
import os

from annotation.guidelines import write_guidelines
from picforge.ledger import ACCEPTED, REJECTED, ROUND_EXPERT, ROUND_MTURK, ROUND_PS, ROUND_VERIFY2, item_id
from annotation.roundtrip import record_sheet, resolve_rows, write_batches
from annotation.text import YES, highlight, locate_phrase, normalize, replace_span, shared_words, words, yes_no
from annotation.triplets import iter_triplets, load_triplets, text_digest
from picforge import schemas
from picforge.errors import InputError, NothingToDo
from picforge.files import write_atomically
from picforge.sheets import csv_text, read_sheet

KIND = "expert"
SCHEMA = "expert_annotation"
SHEET_COLUMNS = ["batch_id", "triplet_id", "phrase", "passage1", "passage2", "Q1", "Q2", "Q3"]
ANSWER_COLUMNS = ("Q1", "Q2", "Q3")
REQUIRED_COLUMNS = ["batch_id", "triplet_id", *ANSWER_COLUMNS]
FIX, CHECK = "fix", "check"          # fix: row not accepted until corrected; check: reported only
MIN_PARAPHRASE_WORDS = 2
FIXLIST_COLUMNS = ["batch_id", "triplet_id", "file", "row", "column", "severity", "problem"]


@dataclasses.dataclass(frozen=True)
class Problem:
    column: str
    severity: str
    message: str


def validate_answers(phrase, q1, q2, q3):
    """Rule problems of one row's answers (PiC Sec. 3.2): ≥2-word paraphrases unlike p and each other, Y/N."""
    problems = []
    for column, paraphrase in (("Q1", q1), ("Q2", q2)):
        if not paraphrase:
            problems.append(Problem(column, FIX, f"{column} is empty; write a paraphrase of the phrase"))
        elif len(words(paraphrase)) < MIN_PARAPHRASE_WORDS:
            problems.append(Problem(column, FIX, f"{column} '{paraphrase}' has fewer than "
                                                 f"{MIN_PARAPHRASE_WORDS} words; use at least {MIN_PARAPHRASE_WORDS}"))
        elif normalize(paraphrase) == normalize(phrase):
            problems.append(Problem(column, FIX, f"{column} repeats the phrase '{phrase}'; rephrase it"))
        elif shared_words(paraphrase, phrase):
            problems.append(Problem(column, CHECK, f"{column} '{paraphrase}' reuses "
                                                   f"{', '.join(shared_words(paraphrase, phrase))} from the phrase"))
    if q1 and q2 and normalize(q1) != normalize(q2) and shared_words(q1, q2):
        problems.append(Problem("Q2", CHECK, f"Q1 and Q2 share {', '.join(shared_words(q1, q2))}"))
    if yes_no(q3) is None:
        problems.append(Problem("Q3", FIX, f"Q3 must be Y or N, not '{q3}'" if q3 else "Q3 is empty; answer Y or N"))
    return problems


def sheet_row(triplet):
    """One sheet row for a triplet: both passages with the phrase marked, answer columns empty."""
    phrase = triplet["phrase"]
    row = {"triplet_id": triplet["triplet_id"], "phrase": phrase, "Q1": "", "Q2": "", "Q3": ""}
    for n in (1, 2):
        page = triplet[f"page{n}"]
        row[f"passage{n}"] = highlight(page["passage"], locate_phrase(page, phrase))
    return row


def export_expert(ledger, run_dir, out_dir, annotators, per_annotator):
    """Give each annotator the next `per_annotator` unassigned triplets: one batch and sheet each.
    Returns [(annotator, batch_id, n_triplets, csv_path, xlsx_path)].

    A triplet released from someone's batch (`annotate reassign`, `cancel-batch`) waits like a new one,
    but never goes back to that person.
    """
    with ledger.read() as q:
        assigned = {iid.rsplit("/", 1)[0] for iid in q.memberships(KIND)}
        released = released_from(q)
    shares, kept_back = {annotator: [] for annotator in annotators}, 0
    for triplet in iter_triplets(run_dir):
        if triplet["triplet_id"] in assigned:
            continue
        taker = next((a for a in annotators if len(shares[a]) < per_annotator
                      and a not in released.get(triplet["triplet_id"], ())), None)
        if taker is None:
            kept_back += 1
        else:
            shares[taker].append(triplet)
        if all(len(chosen) == per_annotator for chosen in shares.values()):
            break
    if not any(shares.values()):
        waiting = (f" but {kept_back} released from {', '.join(annotators)}, which go to someone else"
                   if kept_back else "")
        raise NothingToDo(f"{run_dir}: nothing to export: every triplet of stage select is in an expert batch"
                          f"{waiting}")
    write_guidelines("expert_guidelines", out_dir)
    return write_batches(ledger, KIND, ROUND_EXPERT, out_dir, SHEET_COLUMNS,
                         [(annotator, {"annotator": annotator, "texts": {t["triplet_id"]: text_digest(t) for t in chosen}},
                           [((t["triplet_id"], "triplet"), sheet_row(t)) for t in chosen])
                          for annotator, chosen in shares.items() if chosen])


def released_from(q):
    """{triplet_id: {annotators it was released from}}."""
    annotators = {b["batch_id"]: b["meta"]["annotator"] for b in q.batches(kind=KIND)}
    found = {}
    for release in q.releases():
        if release["batch_id"] in annotators:
            found.setdefault(release["item_id"].rsplit("/", 1)[0], set()).add(annotators[release["batch_id"]])
    return found


@dataclasses.dataclass
class SheetRow:
    """One returned row resolved against the ledger."""
    path: str
    row_no: int
    batch_id: str
    annotator: str
    triplet_id: str
    q1: str
    q2: str
    q3: str
    problems: list = dataclasses.field(default_factory=list)
    released: bool = False   # reassigned to someone else: the row is not recorded
    grammar_checked: bool = False  # LanguageTool ran on its paraphrases (not with --no-grammar)

    @property
    def blank(self):
        return not (self.q1 or self.q2 or self.q3)

    @property
    def recorded(self):
        return not (self.blank or self.released)

    @property
    def accepted(self):
        return not self.blank and not any(p.severity == FIX for p in self.problems)


def grammar_problems(checker, triplet, column, paraphrase, severity):
    """LanguageTool issues of the passage with the phrase replaced by `paraphrase`, as Problems."""
    page = triplet["page1" if column == "Q1" else "page2"]
    text, span = replace_span(page["passage"], locate_phrase(page, triplet["phrase"]), paraphrase)
    problems = []
    for issue in checker.issues_in_span(text, span):
        hint = f" (suggestions: {', '.join(issue['replacements'])})" if issue["replacements"] else ""
        problems.append(Problem(column, severity, f"LanguageTool {issue['rule']}: {issue['message']} "
                                                  f"at '{issue['text']}'{hint}"))
    return problems


# What a verification round checked, by sheet column: the paraphrase (and its PS pair) or the Y/N label.
VERIFIED_BY_COLUMN = {"Q1": ("q1", "ps_pos"), "Q2": ("q2", "ps_neg"), "Q3": ("q3",)}


def refuse_edits_of_verified_text(q, rows):
    """InputError (file, row, what changed, how to proceed) when a recorded row changes an answer that a
    verification round (MTurk, second round, PS) already checked: a release holds only verified text."""
    verified = {d["item_id"] for rnd in (ROUND_MTURK, ROUND_VERIFY2, ROUND_PS) for d in q.decisions(round=rnd)}
    recorded = {a["triplet_id"]: a for a in q.expert_annotations(accepted_only=False)}
    edits = []
    for row in rows:
        before = recorded.get(row.triplet_id)
        if not row.recorded or before is None:
            continue
        now = {"Q1": row.q1, "Q2": row.q2, "Q3": yes_no(row.q3) or row.q3}
        was = {"Q1": before["q1"], "Q2": before["q2"], "Q3": "Y" if before["same_meaning"] else "N"}
        for column, kinds in VERIFIED_BY_COLUMN.items():
            if now[column].strip() != was[column] and any(item_id(row.triplet_id, k) in verified for k in kinds):
                edits.append(f"{row.path}: row {row.row_no}, column {column} (triplet {row.triplet_id}): "
                             f"{was[column]!r} was verified, the sheet now says {now[column]!r}")
    if edits:
        raise InputError(f"{edits[0]}{f' (and {len(edits) - 1} more)' if len(edits) > 1 else ''}; a verified "
                         "answer cannot be replaced: put the verified text back in the sheet (nothing was recorded)")


def check_rows(ledger, run_dir, paths, checker=None, strict_grammar=False):
    """Resolve, validate and grammar-check returned expert sheets (nothing is written)."""
    resolved = resolve_rows(ledger, paths, KIND, "triplet_id", REQUIRED_COLUMNS, ANSWER_COLUMNS, item_kind="triplet")
    triplets = load_triplets(run_dir, {tid for *_, tid, _ in resolved})
    with ledger.read() as q:
        released = {(r["batch_id"], r["item_id"]) for r in q.releases()}
    rows = []
    for path, row_no, batch, triplet_id, row in resolved:
        checked = SheetRow(path, row_no, batch["batch_id"], batch["meta"]["annotator"], triplet_id,
                           row["Q1"], row["Q2"], row["Q3"],
                           released=(batch["batch_id"], item_id(triplet_id, "triplet")) in released,
                           grammar_checked=checker is not None)
        if checked.recorded:
            triplet = triplets[triplet_id]
            checked.problems = validate_answers(triplet["phrase"], checked.q1, checked.q2, checked.q3)
            if checker is not None:
                for column, paraphrase in (("Q1", checked.q1), ("Q2", checked.q2)):
                    if paraphrase and not any(p.column == column and p.severity == FIX for p in checked.problems):
                        checked.problems += grammar_problems(checker, triplet, column, paraphrase,
                                                             FIX if strict_grammar else CHECK)
        rows.append(checked)
    with ledger.read() as q:
        refuse_edits_of_verified_text(q, rows)
    return rows, triplets


def expert_annotation(row):
    """The ExpertAnnotation record of an accepted row (checked against its JSON Schema)."""
    record = {"triplet_id": row.triplet_id, "annotator": row.annotator, "q1": row.q1, "q2": row.q2,
              "same_meaning": yes_no(row.q3) == YES}
    problems = schemas.errors(SCHEMA, record)
    if problems:
        raise ValueError(f"{row.path}: row {row.row_no}: not a valid {SCHEMA}: {problems}")
    return record


def record_rows(ledger, rows, triplets):
    """Write checked rows in ONE transaction: answers, round-0 decisions, accepted ExpertAnnotations."""
    with ledger.transaction() as tx:
        for row in rows:
            if not row.recorded:
                continue
            assignment_id = record_sheet(tx, row.batch_id, row.annotator, row.path)
            iid = item_id(row.triplet_id, "triplet")
            tx.record_answers(assignment_id, {f"{row.triplet_id}/{c}": (iid, v)
                                              for c, v in (("Q1", row.q1), ("Q2", row.q2), ("Q3", row.q3))},
                              replace=True)
            fixes = [p.message for p in row.problems if p.severity == FIX]
            tx.record_decision(iid, ROUND_EXPERT, ACCEPTED if row.accepted else REJECTED,
                               reason="; ".join(fixes), decided_by="ingest expert",
                               detail={"problems": [dataclasses.asdict(p) for p in row.problems],
                                       "grammar_checked": row.grammar_checked})
            if row.accepted:
                tx.record_expert_annotation(expert_annotation(row), row.batch_id, triplets[row.triplet_id]["phrase"])


def write_fixlists(rows, out_dir):
    """One fix-list per annotator (CSV and Markdown) listing every row with a problem; returns the paths.

    A fix-list accumulates, keyed by exported sheet (batch) and row: ingesting a returned sheet replaces the
    entries of its batch and keeps those of the annotator's other sheets. Blank (or reassigned) rows add nothing
    and remove nothing.
    """
    by_annotator = {row.annotator: {} for row in rows if row.recorded}
    ingested = {row.batch_id for row in rows if row.recorded}
    for annotator, entries in by_annotator.items():
        old = os.path.join(out_dir, f"fixes-{annotator}.csv")
        if os.path.exists(old):
            for _, entry in read_sheet(old, FIXLIST_COLUMNS).rows:
                if entry["batch_id"] not in ingested:
                    entries.setdefault((entry["batch_id"], int(entry["row"])), []).append(
                        {c: entry[c] for c in FIXLIST_COLUMNS})
    for row in rows:
        if row.annotator not in by_annotator or not row.recorded:
            continue
        for problem in row.problems:
            by_annotator[row.annotator].setdefault((row.batch_id, row.row_no), []).append({
                "batch_id": row.batch_id, "triplet_id": row.triplet_id, "file": os.path.basename(row.path),
                "row": row.row_no, "column": problem.column, "severity": problem.severity,
                "problem": problem.message})
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for annotator, keyed in sorted(by_annotator.items()):
        entries = [e for key in sorted(keyed) for e in keyed[key]]
        base = os.path.join(out_dir, f"fixes-{annotator}")
        write_atomically(base + ".csv", "\ufeff" + csv_text(FIXLIST_COLUMNS, entries))
        lines = [f"# Fix-list for {annotator}\n\n`fix` rows are not accepted until corrected; "
                 "`check` rows are accepted but worth a second look.\n\n"
                 "| file | row | triplet | column | severity | problem |\n| --- | --- | --- | --- | --- | --- |\n"]
        for e in entries:
            problem = str(e["problem"]).replace("|", "\\|")
            lines.append(f"| {e['file']} | {e['row']} | {e['triplet_id']} | {e['column']} | "
                         f"{e['severity']} | {problem} |\n")
        write_atomically(base + ".md", "".join(lines))
        written += [base + ".csv", base + ".md"]
    return written


def ingest_expert(ledger, run_dir, paths, fix_dir, checker=None, strict_grammar=False):
    """Validate, grammar-check and record returned expert sheets; write fix-lists; return counts per annotator."""
    rows, triplets = check_rows(ledger, run_dir, paths, checker, strict_grammar)
    record_rows(ledger, rows, triplets)
    fixlists = write_fixlists(rows, fix_dir)
    counts = {}
    for row in rows:
        tally = counts.setdefault(row.annotator, {"rows": 0, "accepted": 0, "to_fix": 0, "checks": 0, "blank": 0,
                                                  "reassigned": 0})
        tally["rows"] += 1
        tally["reassigned"] += row.released
        tally["blank"] += row.blank and not row.released
        tally["accepted"] += row.recorded and row.accepted
        tally["to_fix"] += row.recorded and not row.accepted
        tally["checks"] += any(p.severity == CHECK for p in row.problems)
    return counts, fixlists
