"""Projected cost of mine, PEARL and CoSimLex on the whole English Wikipedia, from the CPU seconds per article that
their benches print: CPU-hours, per article and per word, and on Dataflow (hours at N workers, dollars at list
prices). No run here: give each verb's measured figure and the prose words per article of the bench's input.

    python bench/wikipedia_cost.py [--mine S W] [--pearl S W] [--cosimlex S W] [--workers 50]

S: CPU seconds per article the bench printed; W: words of prose per article of its input (the 103-page sample and
its scaled copies: 287,924 words in 69 articles, 4,173). The defaults are the figures in docs/scaling.md, section 10,
with the command that printed each; rerun those benches after a change and pass their figures here.
"""
import argparse

ARTICLES = 6.9e6  # English Wikipedia articles (issue 47; 7,028,569 on 26 July 2025, docs/scaling.md section 2)
WORDS_PER_ARTICLE = 702  # mean words per article (about 5.0e9 words, docs/scaling.md section 2)
SAMPLE_WORDS_PER_ARTICLE = 287_924 / 69
VCPU_HOUR = 0.056  # Dataflow batch vCPU, us-central1 (docs/scaling.md section 4: June 2023 list, stable since 2019)
MEMORY_GB_HOUR = 0.003557  # Dataflow batch memory per GB-hour, same source
WORKER_VCPUS, WORKER_GB = 8, 30  # n1-standard-8: 8 vCPUs, 30 GB
START_UP_HOURS = 2 / 60  # Dataflow job start-up, about 2 minutes (docs/scaling.md section 5)
DEFAULTS = {  # verb: (CPU s per article, words per article of the bench input)
    "mine": (0.228, SAMPLE_WORDS_PER_ARTICLE),
    "pearl": (3.281, SAMPLE_WORDS_PER_ARTICLE),
    "cosimlex": (0.083, SAMPLE_WORDS_PER_ARTICLE),
}


def projection(seconds_per_article, words_per_article, workers):
    """{figure: value} of one verb on the whole English Wikipedia, scaled by words (articles there are shorter)."""
    per_word = seconds_per_article / words_per_article
    cpu_hours = per_word * WORDS_PER_ARTICLE * ARTICLES / 3600
    vcpu_price = VCPU_HOUR + MEMORY_GB_HOUR * WORKER_GB / WORKER_VCPUS
    return {
        "CPU s/article (bench)": seconds_per_article,
        "CPU ms/1k words": per_word * 1e6,
        "CPU s/enwiki article": per_word * WORDS_PER_ARTICLE,
        "CPU-hours, by words": cpu_hours,
        "CPU-hours, by articles": seconds_per_article * ARTICLES / 3600,
        f"Dataflow h ({workers} workers)": START_UP_HOURS + cpu_hours / (workers * WORKER_VCPUS),
        "Dataflow $": (cpu_hours + START_UP_HOURS * workers * WORKER_VCPUS) * vcpu_price,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for verb, default in DEFAULTS.items():
        parser.add_argument(f"--{verb}", nargs=2, type=float, default=default, metavar=("S", "W"))
    parser.add_argument("--workers", type=int, default=50, help="n1-standard-8 Dataflow workers (default 50)")
    args = parser.parse_args(argv)
    rows = {verb: projection(*getattr(args, verb), args.workers) for verb in DEFAULTS}
    print(f"English Wikipedia: {ARTICLES:,.0f} articles x {WORDS_PER_ARTICLE} words; Dataflow n1-standard-8 at "
          f"${VCPU_HOUR}/vCPU-h + ${MEMORY_GB_HOUR}/GB-h (us-central1 list), 2 min start-up")
    names = list(next(iter(rows.values())))
    print(f"{'':<26}" + "".join(f"{verb:>12}" for verb in rows))
    for name in names:
        print(f"{name:<26}" + "".join(f"{rows[verb][name]:>12,.3f}" if rows[verb][name] < 10 else
                                     f"{rows[verb][name]:>12,.0f}" for verb in rows))
    total = sum(row["Dataflow $"] for row in rows.values())
    print(f"all three on Dataflow: ${total:,.0f}; CPU-hours by words {sum(r['CPU-hours, by words'] for r in rows.values()):,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
