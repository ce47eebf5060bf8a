"""Where `picforge pearl build`'s CPU seconds go: the build of a mining run under cProfile with a CPU-time clock (so
other jobs on the machine do not inflate a step), its steps' CPU seconds and shares beside the whole process's.

    PYTHONPATH=. python bench/pearl_profile.py --run MINING_RUN [--out DIR] [--top N]

"""
import argparse
import cProfile
import pstats
import resource
import tempfile
import time


def code_of(function):
    """(file, first line, name) of a function, as cProfile keys it."""
    code = function.__code__
    return code.co_filename, code.co_firstlineno, code.co_name


def steps(stats):
    """[(step, CPU seconds)]: each step the cumulative CPU of the function that does it (encoder calls of the sense
    choice less the glosses' and the model load's)."""
    from companions.pearl import corpus, synonyms
    from picforge import encoders, spacy_models

    def cumulative(function):
        entry = stats.stats.get(code_of(function))
        return entry[3] if entry else 0.0

    in_context = cumulative(synonyms.SensesInContext.in_context)
    glosses = cumulative(synonyms.SensesInContext._embed_glosses)
    senses = cumulative(synonyms.wordnet_senses)
    model = cumulative(encoders.load_sentence_model)
    return [("spaCy parse + NER + constituent mapping", cumulative(corpus._ParsePhrases.process)),
            ("spaCy model load", cumulative(spacy_models.shared_pipeline)),
            ("WordNet database load", cumulative(synonyms.load_wordnet)),
            ("WordNet senses of the asked words", senses),
            ("encoder: sense glosses", glosses),
            ("encoder: sense contexts + replaced phrases", in_context - glosses - senses - model),
            ("encoder model load", model),
            ("encoder: hard-negative phrases", cumulative(corpus._EmbedGroup.process)),
            ("augmentations without WordNet", cumulative(corpus._Augment.process) - in_context)]


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, help="mining run directory with a `sentences` stage")
    parser.add_argument("--out", help="PEARL run directory to build into (default: a temporary one)")
    parser.add_argument("--top", type=int, default=0, help="also print the N functions of most own CPU time")
    args = parser.parse_args()
    start, wall = cpu_seconds(), time.perf_counter()
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    from companions.pearl.build import build_corpus

    build_corpus(args.run, args.out or tempfile.mkdtemp(prefix="pearl-profile-"))
    profile.disable()
    total = cpu_seconds() - start
    stats = pstats.Stats(profile)
    print(f"pearl build in one process: {total:.1f} CPU s ({time.perf_counter() - wall:.0f} s wall, with "
          "profiling overhead)")
    print(f"{'step':<46}{'CPU s':>8}{'share':>8}")
    found = steps(stats)
    for step, seconds in found + [("rest: imports, Beam, shuffles, hard-negative search", total - sum(s for _, s in found))]:
        print(f"{step:<46}{seconds:>8.1f}{100 * seconds / total:>7.1f}%")
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
