"""PEARL's type figures on real text: the dependency mapping's per-type accuracy on the hand-labelled spans, and
the shares of lexical and entity types (OTHER beside the paper's 88.5 %) by the rule that types a phrase.

    PYTHONPATH=. python bench/pearl_types.py accuracy
    PYTHONPATH=. python bench/pearl_types.py brackets
    PYTHONPATH=. python bench/pearl_types.py shares --run MINING_RUN [--min-entity-share 0.5 1.0] [--min-count 2 1]
    PYTHONPATH=. python bench/pearl_types.py adverbs --run MINING_RUN

`accuracy` scores `tests/pearl/data/constituent_labels.jsonl`; `brackets` gives per-type precision and recall
against the full hand bracketing of `tests/pearl/data/bracketed_sentences.jsonl`; `shares` parses the run's `sentences` once and
prints, per --min-entity-share and --min-count, the lexical and entity type shares of the phrases seen at least that
often (2: what `picforge pearl build` keeps by default; 1: all phrases). `adverbs` says where ADVP stands at the
default cut: its single- and multi-word phrases, the share if every adverb the mapping leaves out were kept alone as
an ADVP (a ceiling: most are degree words inside an ADJP, QP or NP), and how the mapping types fixed expressions that
Penn Treebank brackets as ADVP or PP.
"""
import argparse
import collections
import json
import pathlib
import re

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "pearl" / "data"
LABELS_FILE = DATA / "constituent_labels.jsonl"
BRACKETS_FILE = DATA / "bracketed_sentences.jsonl"


def accuracy():
    from companions.pearl.constituents import mapping_accuracy
    from companions.pearl.corpus import load_parser, token_entities

    labelled = [json.loads(line) for line in LABELS_FILE.read_text(encoding="utf-8").splitlines()]
    for lex, (right, emitted) in sorted(mapping_accuracy(load_parser(), labelled, token_entities).items()):
        print(f"{lex}: {right} / {emitted} = {100 * right / emitted:.1f} %")


def brackets():
    from companions.pearl.constituents import bracket_scores
    from companions.pearl.corpus import load_parser

    bracketed = [json.loads(line)["brackets"] for line in BRACKETS_FILE.read_text(encoding="utf-8").splitlines()]
    print(f"{len(bracketed)} hand-bracketed sentences; spans within the build's length window")
    print(f"{'type':<6}{'right':>7}{'found':>7}{'gold':>6}{'precision':>11}{'recall':>9}")
    for lex, (right, found, gold) in bracket_scores(load_parser(), bracketed).items():
        print(f"{lex:<6}{right:>7}{found:>7}{gold:>6}{100 * right / (found or 1):>10.1f}%{100 * right / (gold or 1):>8.1f}%")


def parsed_sentences(run_dir):
    """(doc, constituents, entities) for each sentence of the mining run."""
    from companions.pearl.constituents import dependency_constituents
    from companions.pearl.corpus import load_parser, token_entities
    from picforge.rundir import RunDir

    texts = [s["text"] for s in RunDir(run_dir).iter_records("sentences", columns=["text"])]
    return [(doc, dependency_constituents(doc), token_entities(doc))
            for doc in load_parser().pipe(texts, batch_size=128)]


def phrase_types(seen, min_count):
    """{phrase: lexical type} of the phrases seen at least `min_count` times, typed as `pearl build` types them."""
    from companions.pearl.corpus import phrase_record

    return {r["phrase"]: r["lexical_type"] for phrase, s in seen.items()
            for _, r in [phrase_record(phrase, s, min_count)] if r}


def shares(run_dir, entity_shares, min_counts):
    from companions.pearl.constituents import LEXICAL_TYPES, phrase_occurrences
    from companions.pearl.corpus import phrase_record

    parsed = parsed_sentences(run_dir)
    for share in entity_shares:
        seen = collections.defaultdict(list)
        for doc, found, entities in parsed:
            for reason, occ in phrase_occurrences(doc, found, entities, min_entity_share=share):
                if occ:
                    seen[occ["phrase"]].append(((occ["lexical_type"], occ["entity_type"]), occ["word_tags"]))
        for min_count in min_counts:
            records = [r for phrase, s in seen.items() for _, r in [phrase_record(phrase, s, min_count)] if r]
            lexical = collections.Counter(r["lexical_type"] for r in records)
            entity = collections.Counter(r["entity_type"] for r in records)
            pct = lambda n: f"{100 * n / len(records):.1f} %"  # noqa: E731
            print(f"--min-entity-share {share}, seen >= {min_count}: {len(records)} phrases; "
                  + ", ".join(f"{lex} {pct(lexical[lex])}" for lex in LEXICAL_TYPES))
            print("  entity types: " + ", ".join(f"{ent} {pct(n)}" for ent, n in entity.most_common()))
            if min_count == 2:
                other_by_type = {lex: sum(1 for r in records if r["lexical_type"] == lex and r["entity_type"] == "OTHER")
                                 for lex in LEXICAL_TYPES}
                print("  OTHER within each lexical type: " + ", ".join(
                    f"{lex} {100 * other_by_type[lex] / max(1, lexical[lex]):.1f} %" for lex in LEXICAL_TYPES))


# multi-word adverbials of the Penn Treebank guidelines' kind and the PP idioms beside them
FIXED_EXPRESSIONS = ("at least", "of course", "as well", "so far", "even more", "much more", "at all", "at first",
                     "at last", "in particular", "ever since", "once again", "right away", "long ago", "no longer",
                     "for example", "in fact", "in general")


def adverbs(run_dir):
    from companions.pearl.constituents import adverbial, phrase_occurrences, single_word_phrase, surface_text

    parsed = parsed_sentences(run_dir)
    seen, left_out = collections.defaultdict(list), collections.defaultdict(list)
    expressions = {phrase: collections.Counter() for phrase in FIXED_EXPRESSIONS}
    for doc, found, entities in parsed:
        for _, occ in phrase_occurrences(doc, found, entities):
            if occ:
                seen[occ["phrase"]].append(((occ["lexical_type"], occ["entity_type"]), occ["word_tags"]))
        for token in doc:
            if adverbial(token) and not single_word_phrase(token):
                left_out[surface_text(doc, token.i, token.i + 1)].append((("ADVP", "OTHER"), [token.tag_]))
        spans = collections.defaultdict(list)
        for lex, start, end in found:
            spans[doc[start:end].text.lower()].append(lex)
        lowered = doc.text.lower()
        for phrase, typed in expressions.items():
            for _ in re.finditer(rf"\b{phrase}\b", lowered):
                typed["occurrences"] += 1
            typed.update(spans.get(phrase, []))
    types = phrase_types(seen, 2)
    advp = [phrase for phrase, lex in types.items() if lex == "ADVP"]
    multi = sum(1 for phrase in advp if " " in phrase)
    advp_once = {phrase for phrase, s in seen.items() if any(lex == "ADVP" for (lex, _), _ in s)}
    print(f"seen >= 2: {len(types)} phrases, ADVP {len(advp)} = {100 * len(advp) / len(types):.1f} % "
          f"({len(advp) - multi} single words, {multi} of several); of all phrases ever typed ADVP "
          f"({len(advp_once)}), {100 * len(advp) / len(advp_once):.1f} % are seen twice")
    ceiling = phrase_types({p: seen.get(p, []) + left_out.get(p, []) for p in set(seen) | set(left_out)}, 2)
    gained = sum(1 for lex in ceiling.values() if lex == "ADVP")
    print(f"every adverb kept alone as ADVP (ceiling): {len(ceiling)} phrases, ADVP {gained} = "
          f"{100 * gained / len(ceiling):.1f} %")
    for phrase, typed in expressions.items():
        print(f"  {phrase!r}: {typed.pop('occurrences', 0)} occurrences, the exact span typed "
              + (", ".join(f"{lex} {n}" for lex, n in typed.most_common()) or "never"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="figure", required=True)
    sub.add_parser("accuracy", help="per-type accuracy on the hand-labelled spans")
    sub.add_parser("brackets", help="per-type precision and recall on the hand-bracketed sentences")
    share = sub.add_parser("shares", help="lexical and entity type shares of a mining run's phrases")
    share.add_argument("--run", required=True, help="mining run directory with a `sentences` stage")
    share.add_argument("--min-entity-share", type=float, nargs="+", default=[0.5, 1.0])
    share.add_argument("--min-count", type=int, nargs="+", default=[2, 1])
    adverb = sub.add_parser("adverbs", help="where ADVP stands at the default cut, and its ceiling")
    adverb.add_argument("--run", required=True, help="mining run directory with a `sentences` stage")
    args = parser.parse_args()
    if args.figure == "accuracy":
        accuracy()
    elif args.figure == "brackets":
        brackets()
    elif args.figure == "adverbs":
        adverbs(args.run)
    else:
        shares(args.run, args.min_entity_share, args.min_count)


if __name__ == "__main__":
    main()
