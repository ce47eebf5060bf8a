"""Read what `picforge build` needs from a run directory; bad input fails with an error naming the triplet."""
from collections import Counter
from dataclasses import dataclass

from picforge import schemas
from picforge.errors import InputError
from picforge.rundir import RunDir

STAGES = ("read-dump", "clean", "sentences", "select", "final_annotations")
SIDES = ("page1", "page2")


@dataclass(frozen=True)
class Source:
    """The Wikipedia page revision a context comes from: what attribution names (title, address, revision)."""

    page_id: int
    title: str
    url: str
    revision_id: int
    revision_timestamp: str = ""


@dataclass(frozen=True)
class Anchor:
    """A triplet's phrase occurrence located in its page: which sentence, and where inside it."""

    page_id: int
    page_text: str
    sentences: tuple
    index: int
    start: int
    end: int
    broken: frozenset = frozenset()
    source: Source = None

    @property
    def surface(self):
        """The phrase exactly as written in the page."""
        return self.sentences[self.index][self.start:self.end]


@dataclass(frozen=True)
class AnnotatedTriplet:
    """One final annotation with the two located occurrences of its phrase (page 1, page 2).

    q1, q2 and same_meaning are None where the verification rounds did not keep them; ps_q1/ps_q2 are the PS
    verdicts (None: not verified) and ps_q1_phrase/ps_q2_phrase the second phrases the PS experts endorsed."""

    triplet_id: str
    phrase: str
    q1: object
    q2: object
    same_meaning: object
    ps_q1: object
    ps_q1_phrase: object
    ps_q2: object
    ps_q2_phrase: object
    anchors: tuple
    semantic_score: float
    domain_score: float


@dataclass(frozen=True)
class RunInputs:
    """Everything the builder reads, plus the fingerprints of the stages it came from."""

    triplets: tuple
    fingerprints: dict


def locate(side, phrase, page, sentences, source=None):
    """Find a triplet side's sentence among its page's sentences; ValueError says what does not match."""
    texts = tuple(s["text"] for s in sentences)
    start, end = side["char_span"]
    found = side["sentence"][start:end]
    if " ".join(found.split()).casefold() != " ".join(phrase.split()).casefold():
        raise ValueError(f"phrase {phrase!r} is not at char_span [{start}, {end}) of its sentence "
                         f"(that span holds {found!r})")
    candidates = [i for i, text in enumerate(texts) if text == side["sentence"]]
    if not candidates:
        raise ValueError(f"its sentence {side['sentence'][:60]!r}… is not among the {len(texts)} sentences "
                         f"of page {page['page_id']}")
    in_passage = [i for i in candidates if all(t in side["passage"] for t in texts[max(0, i - 2):i + 3])]
    broken = frozenset(i for i, s in enumerate(sentences) if s.get("broken"))
    return Anchor(page["page_id"], page["text"], texts, (in_passage or candidates)[0], start, end, broken, source)


def _annotations(run):
    where = run.stage_dir("final_annotations")
    records = list(run.iter_records("final_annotations"))
    if not records:
        raise InputError(f"{where}: the ledger export holds no final annotations; finish the annotation "
                         "rounds and export again")
    for row, record in enumerate(records):
        errors = schemas.errors("final_annotation", record)
        if errors:
            raise InputError(f"{where} row {row} (triplet {record.get('triplet_id')}): {'; '.join(errors)}; "
                             "re-export the final annotations from the ledger")
    repeated = [tid for tid, n in Counter(r["triplet_id"] for r in records).items() if n > 1]
    if repeated:
        raise InputError(f"{where}: triplet {repeated[0]} has more than one final annotation; the export must "
                         "hold one per triplet")
    return sorted(records, key=lambda r: r["triplet_id"])


def _triplets(run, annotations):
    wanted = {a["triplet_id"] for a in annotations}
    triplets = {t["triplet_id"]: t for t in run.iter_records("select") if t["triplet_id"] in wanted}
    for annotation in annotations:
        tid = annotation["triplet_id"]
        if tid not in triplets:
            raise InputError(f"{run.stage_dir('select')}: triplet {tid} of the final annotations is not in this "
                             "run's select stage; export the annotations from this run's ledger")
        if annotation["phrase"] != triplets[tid]["phrase"]:
            raise InputError(f"{run.stage_dir('final_annotations')}: triplet {tid} is annotated for phrase "
                             f"{annotation['phrase']!r} but the select stage has {triplets[tid]['phrase']!r}; "
                             "export the annotations from this run's ledger")
    return triplets


def stage_fingerprints(root):
    """{stage: fingerprint} of the stages a build reads; a missing stage is an error naming its producer."""
    run = RunDir(root)
    return {stage: run.require(stage)["fingerprint"] for stage in STAGES}


def page_sources(run, pages):
    """{page_id: Source} of `pages` (clean records), their revisions read off the read-dump stage; a page it does not
    list is an error naming the fix."""
    revisions = {a["page_id"]: a for a in run.iter_records("read-dump") if a["page_id"] in pages}
    sources = {}
    for page_id, page in pages.items():
        if page_id not in revisions:
            raise InputError(f"{run.stage_dir('read-dump')}: page {page_id} is missing, so its revision (which the "
                             "licence's attribution names) is unknown; mine the run again from its dump")
        article = revisions[page_id]
        sources[page_id] = Source(page_id, page["title"], page["url"], article["revision_id"],
                                  article.get("revision_timestamp") or "")
    return sources


def load_run(root):
    """Read and cross-check the clean, sentences, select and final_annotations stages of run `root`."""
    run = RunDir(root)
    fingerprints = stage_fingerprints(root)
    annotations = _annotations(run)
    triplets = _triplets(run, annotations)
    page_ids = {t[side]["page_id"] for t in triplets.values() for side in SIDES}
    pages = {p["page_id"]: p for p in run.iter_records("clean") if p["page_id"] in page_ids}
    sources = page_sources(run, pages)
    sentences = {}
    for sentence in run.iter_records("sentences", columns=["page_id", "idx", "text", "broken"]):
        if sentence["page_id"] in page_ids:
            sentences.setdefault(sentence["page_id"], []).append(sentence)
    located = []
    for annotation in annotations:
        triplet = triplets[annotation["triplet_id"]]
        anchors = []
        for side in SIDES:
            place = f"{side} of triplet {triplet['triplet_id']}"
            page_id = triplet[side]["page_id"]
            if page_id not in pages:
                raise InputError(f"{run.stage_dir('clean')}: page {page_id} ({place}) is missing; re-run the "
                                 "clean stage over the dump the triplets were mined from")
            if page_id not in sentences:
                raise InputError(f"{run.stage_dir('sentences')}: page {page_id} ({place}) has no sentences; "
                                 "re-run the sentences stage")
            page_sentences = sorted(sentences[page_id], key=lambda s: s["idx"])
            try:
                anchors.append(locate(triplet[side], triplet["phrase"], pages[page_id], page_sentences,
                                      sources[page_id]))
            except ValueError as err:
                raise InputError(f"{run.stage_dir('select')}: triplet {triplet['triplet_id']} {side}: {err}; "
                                 "re-run select and the annotation export from the same run") from None
        located.append(AnnotatedTriplet(
            triplet["triplet_id"], triplet["phrase"], annotation["q1"], annotation["q2"], annotation["same_meaning"],
            annotation["ps_q1"], annotation["ps_q1_phrase"], annotation["ps_q2"], annotation["ps_q2_phrase"],
            tuple(anchors),
            triplet["semantic_score"], triplet["domain_score"]))
    return RunInputs(tuple(located), fingerprints)
