"""Time the four STS-B-Context evaluation setups on real STS-B rows placed in a fixed template context.

    python bench/stsb_context_eval.py --stsb ../shared/data/stsb/sts-test-subset.csv --rows 64 --max-span 20 \
        [--vectors tests/stsb_context/data/hand-glove.vec]

Prints, per setup (and GloVe row, given word vectors): rows, candidate spans scored, seconds, rows per second, the
Pearson/Spearman correlations and Williams' p against the best row of its setup and of all (no API calls: the
context is "<Letter>ccording to the local paper, <phrase>, as everyone heard.").
"""
import argparse
import time

from companions.stsb_context import evaluate, prompts, significance, spans
from companions.stsb_context.stsb import read_pairs
from picforge.encoders import BUNDLED_MODEL, resolve_model_path


def template_rows(path, count):
    """The first `count` pairs with their target sentence inside a fixed sentence."""
    rows = []
    for pair in read_pairs(path)[:count]:
        core = pair["sentence2"].rstrip(".")
        letter = prompts.start_letter(0, pair["pair_id"])
        rows.append({"origin_phrase": pair["sentence1"], "score": pair["score"],
                     "context": f"{letter}ccording to the local paper, {core[0].lower()}{core[1:]}, as everyone heard."})
    return rows


def candidate_count(setup, rows, min_size, max_size):
    if setup not in evaluate.SPAN_SETUPS:
        return len(rows)
    return sum(len(spans.word_spans(len(spans.word_offsets(r["context"])), min_size, max_size)) for r in rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stsb", required=True)
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--min-span", type=int, default=1)
    parser.add_argument("--max-span", type=int, default=20)
    parser.add_argument("--device")
    parser.add_argument("--vectors", help="word vectors (GloVe / word2vec text) for the GloVe rows")
    args = parser.parse_args()
    rows = template_rows(args.stsb, args.rows)
    encoder = evaluate.Encoder(resolve_model_path(BUNDLED_MODEL), device=args.device)
    started = time.perf_counter()
    encoder.model
    print(f"model load {time.perf_counter() - started:.1f}s ({encoder.name})")
    encoders = {evaluate.MODEL: encoder}
    if args.vectors:
        encoders[evaluate.GLOVE] = evaluate.glove_encoder(args.vectors, rows)
    gold = [r["score"] for r in rows]
    timed, evaluated = [], []
    for declared in evaluate.evaluated_stages(evaluate.SETUPS, bool(args.vectors)):
        stage, setup, kind = declared.name, declared.setup, declared.encoder
        started = time.perf_counter()
        scored = evaluate.score_rows(setup, rows, encoders[kind], args.min_span, args.max_span)
        timed.append((time.perf_counter() - started, candidate_count(setup, rows, args.min_span, args.max_span)))
        evaluated.append({"stage": stage, "setup": setup, "encoder": kind, "predictions": [s for s, _, _ in scored]})
    print(f"{'stage':<24} {'rows':>5} {'spans':>7} {'seconds':>8} {'rows/s':>8} {'pearson':>8} {'spearman':>8} "
          f"{'p best/setup':>12} {'p best/all':>10}")
    for (seconds, count), row in zip(timed, significance.compare(gold, evaluated)):
        cells = ["best" if row[f"best_in_{scope}"] == row["stage"] else format(row[f"p_vs_best_in_{scope}"], ".3g")
                 for scope in ("setup", "all")]
        print(f"{row['stage']:<24} {len(rows):>5} {count:>7} {seconds:>8.2f} {len(rows) / seconds:>8.1f} "
              f"{row['pearson']:>8.3f} {row['spearman']:>8.3f} {cells[0]:>12} {cells[1]:>10}")

if __name__ == "__main__":
    main()
