"""PEARL's type figures on real text: the dependency mapping's per-type accuracy on the hand-labelled spans, and
the shares of lexical and entity types (OTHER beside the paper's 88.5 %) by the rule that types a phrase.

    PYTHONPATH=. python bench/pearl_types.py accuracy
    PYTHONPATH=. python bench/pearl_types.py shares --run MINING_RUN [--min-entity-share 0.5 1.0] [--min-count 2 1]

`accuracy` scores `tests/pearl/data/constituent_labels.jsonl`; `shares` parses the run's `sentences` once and
prints, per --min-entity-share and --min-count, the lexical and entity type shares of the phrases seen at least that
often (2: what `picforge pearl build` keeps by default; 1: all phrases).
"""
import argparse
import collections
import json
import pathlib

LABELS_FILE = pathlib.Path(__file__).resolve().parent.parent / "tests" / "pearl" / "data" / "constituent_labels.jsonl"


def accuracy():
    from companions.pearl.constituents import mapping_accuracy
    from companions.pearl.corpus import load_parser, token_entities

    labelled = [json.loads(line) for line in LABELS_FILE.read_text(encoding="utf-8").splitlines()]
    for lex, (right, emitted) in sorted(mapping_accuracy(load_parser(), labelled, token_entities).items()):
        print(f"{lex}: {right} / {emitted} = {100 * right / emitted:.1f} %")


def shares(run_dir, entity_shares, min_counts):
    from companions.pearl.constituents import LEXICAL_TYPES, dependency_constituents, phrase_occurrences
    from companions.pearl.corpus import load_parser, phrase_record, token_entities
    from picforge.rundir import RunDir

    nlp = load_parser()
    texts = [s["text"] for s in RunDir(run_dir).iter_records("sentences", columns=["text"])]
    parsed = [(doc, dependency_constituents(doc), token_entities(doc)) for doc in nlp.pipe(texts, batch_size=128)]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="figure", required=True)
    sub.add_parser("accuracy", help="per-type accuracy on the hand-labelled spans")
    share = sub.add_parser("shares", help="lexical and entity type shares of a mining run's phrases")
    share.add_argument("--run", required=True, help="mining run directory with a `sentences` stage")
    share.add_argument("--min-entity-share", type=float, nargs="+", default=[0.5, 1.0])
    share.add_argument("--min-count", type=int, nargs="+", default=[2, 1])
    args = parser.parse_args()
    if args.figure == "accuracy":
        accuracy()
    else:
        shares(args.run, args.min_entity_share, args.min_count)


if __name__ == "__main__":
    main()
