"""Phrases of PEARL's five lexical types (NP, VP, PP, ADVP, ADJP) and their OntoNotes entity type.

The paper parses with the Berkeley Neural Parser; by default the constituents are read off spaCy's dependency
parse instead (the mapping is stated in docs/pearl.md and in `dependency_constituents`); `benepar_constituents`
reads a benepar parse when that package and its model are installed.
"""
import re

LEXICAL_TYPES = ("NP", "VP", "PP", "ADVP", "ADJP")
ONTONOTES_TYPES = ("CARDINAL", "DATE", "PERSON", "NORP", "GPE", "LAW", "PERCENT", "ORDINAL", "MONEY",
                   "WORK_OF_ART", "FAC", "TIME", "QUANTITY", "PRODUCT", "LANGUAGE", "ORG", "LOC", "EVENT")
OTHER = "OTHER"
ENTITY_TYPES = ONTONOTES_TYPES + (OTHER,)
LABELS = tuple(f"{lex}-{ent}" for lex in LEXICAL_TYPES for ent in ENTITY_TYPES)

# right dependents that end a head's phrase: coordination and punctuation belong to the enclosing constituent
CLAUSE_BREAKS = frozenset({"punct", "cc", "conj", "preconj", "appos", "parataxis", "dep", "meta"})
VP_LEFT_DEPS = frozenset({"aux", "auxpass", "neg"})  # a VP keeps its auxiliaries and negation, not its subject
PP_DEPS = frozenset({"prep", "agent", "dative"})
NOMINAL_POS = frozenset({"NOUN", "PROPN"})
SINGLE_WORD_TYPES = ("ADVP", "ADJP")  # kept from one token ("also", "is large"), as the paper's 11.0 % ADVP implies
DEGREE_HEADS = frozenset({"ADJ", "ADV", "NUM", "DET"})  # "very large", "about 30": the adverb is inside their phrase
PARTICIPLE_TAGS = frozenset({"VBG", "VBN"})
COMPARATIVE_WORDS = frozenset({"as", "than"})  # "as well as", "rather than" (CONJP), "as large as"
MODIFIER_LEFT_DEPS = frozenset({"advmod", "npadvmod", "neg"})  # "very large", "9,500 years ago"; not a subject or mark
ADVERBIAL_DEPS = frozenset({"advmod", "npadvmod"})  # an adjective with these dependencies is used as an adverb
NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "dative"})  # "most of the interior" is an NP


def _right_end(token, breaks):
    """Index after the last token of `token`'s right dependents, stopping at the first clause break."""
    end = token.i + 1
    for child in token.rights:
        if child.dep_ in breaks:
            break
        end = child.right_edge.i + 1
    return end


def _left_start(token, keep):
    """Index of the first token of the contiguous left dependents `keep(child)` accepts, nearest first."""
    start = token.i
    for child in reversed(list(token.lefts)):
        if not keep(child) or child.right_edge.i + 1 != start:
            break
        start = child.left_edge.i
    return start


def _trim(doc, start, end):
    """(start, end) without punctuation or spaces at either edge."""
    while start < end and (doc[start].is_punct or doc[start].is_space):
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
        end -= 1
    return start, end


def _attributive(token):
    """True for an adjective before its noun ("the large city", "black and white films"), or coordinated with
    one: inside the NP, not an ADJP."""
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if following is not None and following.pos_ in NOMINAL_POS:
        return True
    if token.dep_ == "conj":
        return token.head.pos_ == "ADJ" and _attributive(token.head)
    return token.dep_ in ("amod", "compound") and token.i < token.head.i


def prenominal_participle(token):
    """True for a participle right before a noun where the two fill one noun's place ("naturally occurring
    deposits are formed", which spaCy parses as a gerund with its object): a modifier inside the NP."""
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return (token.tag_ in PARTICIPLE_TAGS and token.dep_ in NOMINAL_DEPS | {"amod", "compound"}
            and following is not None and following.pos_ in NOMINAL_POS)


def adverbial(token):
    """True for an adverb, or an adjective in an adverb's place ("took longer than expected", "Second, ..."):
    Penn Treebank tags these RB and brackets them ADVP, where spaCy's tagger keeps JJ."""
    return token.pos_ == "ADV" or token.pos_ == "ADJ" and token.dep_ in ADVERBIAL_DEPS


def single_word_phrase(token):
    """True when a lone adjective or adverb is its own ADJP/ADVP in Penn Treebank bracketing: a predicative or
    postnominal adjective outside a coordination; an adverb modifying a verb or clause, not a wh-adverb (WHADVP),
    particle (PRT), part of "as well as" / "rather than" (CONJP), the degree word of an adjective, adverb or number,
    or inside an NP or an attributive modifier ("only the king", "partially recognized countries", "naturally
    occurring deposits")."""
    if not adverbial(token):  # a conjunct is inside a flat coordinated ADJP ("long and flexible")
        return not _attributive(token) and token.dep_ != "conj" and not any(c.dep_ == "conj" for c in token.rights)
    inside_np = token.head.pos_ in NOMINAL_POS and token.i < token.head.i  # "only the king", "almost the entire"
    return (token.tag_ != "WRB" and token.dep_ != "prt" and token.head.pos_ not in DEGREE_HEADS and not inside_np
            and token.head.dep_ != "amod" and not prenominal_participle(token.head)
            and not {token.lower_, token.head.lower_} & COMPARATIVE_WORDS)


def dependency_constituents(doc):
    """(lexical_type, start, end) token spans read off a dependency parse.

    NP: a noun chunk, and a noun's whole subtree up to a clause break (NP → NP PP/SBAR); PP: a `prep`/`agent`/
    `dative` preposition with its subtree; VP: a verb with its auxiliaries and negation and its right dependents
    up to a clause break; ADJP / ADVP: an adjective / adverb with its left modifiers and right dependents up to a
    clause break (NP when it has a determiner or a nominal role; alone only where `single_word_phrase`). Spans are trimmed of edge
    punctuation; duplicates of one (type, span) are dropped.
    """
    spans = set()
    for chunk in doc.noun_chunks:
        spans.add(("NP", chunk.start, chunk.end))
    not_break = lambda child: child.dep_ not in CLAUSE_BREAKS  # noqa: E731 - the one predicate, named inline
    for token in doc:
        if token.pos_ in NOMINAL_POS and token.dep_ != "compound":
            spans.add(("NP", _left_start(token, not_break), _right_end(token, CLAUSE_BREAKS)))
        elif token.dep_ in PP_DEPS and token.pos_ == "ADP" and any(True for _ in token.rights):
            spans.add(("PP", token.left_edge.i, token.right_edge.i + 1))
        elif token.pos_ == "VERB":
            spans.add(("VP", _left_start(token, lambda c: c.dep_ in VP_LEFT_DEPS), _right_end(token, CLAUSE_BREAKS)))
        elif token.pos_ in ("ADJ", "ADV"):
            # "the Irish poor" and "most of the interior" head NPs
            nominal = any(child.dep_ == "det" for child in token.lefts) or \
                token.pos_ == "ADJ" and token.dep_ in NOMINAL_DEPS
            lex = "NP" if nominal else "ADVP" if adverbial(token) else "ADJP"
            start = _left_start(token, not_break if nominal else lambda c: c.dep_ in MODIFIER_LEFT_DEPS)
            end = _right_end(token, CLAUSE_BREAKS)
            if end - start > 1 or single_word_phrase(token):
                spans.add((lex, start, end))
    trimmed = {(lex, *_trim(doc, start, end)) for lex, start, end in spans}
    return sorted((s for s in trimmed if s[2] > s[1]), key=lambda s: (s[1], s[2], LEXICAL_TYPES.index(s[0])))


def mapping_accuracy(nlp, labelled, entities_of):
    """{type: (right, emitted)}: of the hand-labelled spans (`sentence`, `start_char`, `end_char`, `ptb_type`) that
    the dependency mapping keeps, how many it gives each type and how many of those have that Penn Treebank type;
    `entities_of(doc)` gives the entity spans."""
    scores = {}
    for item, doc in zip(labelled, nlp.pipe(item["sentence"] for item in labelled)):
        kept = {(start, end): lex for lex, start, end in kept_spans(doc, dependency_constituents(doc),
                                                                      entities_of(doc))}
        lex = kept.get((item["start_char"], item["end_char"]))
        if lex:
            right, emitted = scores.get(lex, (0, 0))
            scores[lex] = (right + (lex == item["ptb_type"]), emitted + 1)
    return scores


BRACKET = re.compile(r"\[(NP|VP|PP|ADVP|ADJP) |\]")


def bracketed_spans(brackets):
    """(text, {(type, start_char, end_char)}) of a hand-bracketed sentence: "[NP the city] [VP lies [PP in ...]]",
    an opening "[TYPE " and a closing "]" around each constituent, the rest the sentence as written."""
    text, spans, open_at, at = [], set(), [], 0
    for match in BRACKET.finditer(brackets):
        text.append(brackets[at:match.start()])
        at, offset = match.end(), len("".join(text))
        if match.group(1):
            open_at.append((match.group(1), offset))
        else:
            lex, start = open_at.pop()
            spans.add((lex, start, offset))
    text.append(brackets[at:])
    if open_at:
        raise ValueError(f"unclosed bracket in {brackets!r}")
    return "".join(text), spans


def kept_spans(doc, found, entities=(), **limits):
    """{(type, start_char, end_char)} of the constituents `found` in `doc` that `phrase_occurrences` keeps."""
    return {(lex, doc[start].idx, doc[end - 1].idx + len(doc[end - 1]))
            for (lex, start, end), (reason, _) in zip(found, phrase_occurrences(doc, found, entities, **limits))
            if reason is None}


def bracket_scores(nlp, bracketed, constituents=None, min_tokens=2, max_tokens=10):
    """{type: (right, found, gold)} over hand-bracketed sentences: the constituents `constituents(doc)` (default the
    dependency mapping) keeps, against the hand brackets within the same length window (NP, VP, PP from
    `min_tokens` tokens, ADVP and ADJP from one; at most `max_tokens`); a span is right when type and characters
    match."""
    constituents = constituents or dependency_constituents
    parsed = [bracketed_spans(brackets) for brackets in bracketed]
    scores = {lex: [0, 0, 0] for lex in LEXICAL_TYPES}
    for (_, gold), doc in zip(parsed, nlp.pipe(text for text, _ in parsed)):
        found = kept_spans(doc, constituents(doc), min_tokens=min_tokens, max_tokens=max_tokens)
        for lex, start, end in gold:
            span = doc.char_span(start, end, alignment_mode="expand")
            least = 1 if lex in SINGLE_WORD_TYPES else min_tokens
            if least <= len(span) <= max_tokens:
                scores[lex][2] += 1
                scores[lex][0] += (lex, start, end) in found
        for lex, *_ in found:
            scores[lex][1] += 1
    return {lex: tuple(counts) for lex, counts in scores.items()}


def benepar_constituents(doc):
    """(lexical_type, start, end) spans of benepar's constituents whose label is one of the five types."""
    spans = set()
    for sentence in doc.sents:
        for constituent in sentence._.constituents:
            for label in constituent._.labels:
                if label in LEXICAL_TYPES:
                    spans.add((label, *_trim(doc, constituent.start, constituent.end)))
    return sorted((s for s in spans if s[2] > s[1]), key=lambda s: (s[1], s[2], LEXICAL_TYPES.index(s[0])))


def entity_type(start, end, entities, min_share=0.5):
    """The OntoNotes label of the entity covering most of tokens [start, end), if it covers at least
    `min_share` of them; else OTHER. `entities` holds (start, end, label) token spans."""
    best, best_overlap = OTHER, 0
    for ent_start, ent_end, label in entities:
        overlap = min(end, ent_end) - max(start, ent_start)
        if overlap > best_overlap:
            best, best_overlap = label, overlap
    if best_overlap < min_share * (end - start):
        return OTHER
    return best if best in ONTONOTES_TYPES else OTHER


BRACKETS = {")": "(", "]": "[", "}": "{"}


def is_balanced(text):
    """True when brackets nest and close and double quotes pair up."""
    stack = []
    for ch in text:
        if ch in "([{":
            stack.append(ch)
        elif ch in BRACKETS and (not stack or stack.pop() != BRACKETS[ch]):
            return False
    return not stack and text.count('"') % 2 == 0


def surface_text(doc, start, end):
    """The phrase as written, whitespace collapsed; a sentence-initial capital is lowered unless a proper noun."""
    text = re.sub(r"\s+", " ", doc[start:end].text).strip()
    first = doc[start]
    if first.is_sent_start and first.pos_ != "PROPN" and text[:1].isupper() and not first.text.isupper():
        text = text[0].lower() + text[1:]
    return text


def word_tags(doc, start, end):
    """The spaCy tag of each space-separated word of tokens [start, end), "" for a word of several tokens."""
    words, current = [], []
    for token in doc[start:end]:
        if not token.is_space:
            current.append(token.tag_)
        if (token.whitespace_ or token.is_space or token.i == end - 1) and current:
            words.append(current[0] if len(current) == 1 else "")
            current = []
    return words


def phrase_occurrences(doc, constituents, entities, *, min_tokens=2, max_tokens=10, min_entity_share=0.5):
    """(reason, occurrence) for each constituent: reason None and {phrase, lexical_type, entity_type, label,
    word_tags} when kept, else why it was skipped (too-short, too-long, no-alphanumeric, unbalanced). `min_tokens` applies
    to NP, VP and PP; ADVP and ADJP are kept from one token."""
    for lex, start, end in constituents:
        if end - start < min_tokens and lex not in SINGLE_WORD_TYPES:
            yield "too-short", None
            continue
        if end - start > max_tokens:
            yield "too-long", None
            continue
        text = surface_text(doc, start, end)
        if not any(ch.isalnum() for ch in text):
            yield "no-alphanumeric", None
            continue
        if not is_balanced(text):
            yield "unbalanced", None
            continue
        ent = entity_type(start, end, entities, min_entity_share)
        yield None, {"phrase": text, "lexical_type": lex, "entity_type": ent, "label": f"{lex}-{ent}",
                     "word_tags": word_tags(doc, start, end)}
