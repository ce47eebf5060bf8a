"""CPU seconds of the whole `picforge pearl build` command beside a baseline: its parse-only loop, and with
`--against REV` the same command on the code of git revision REV; then what changed in the output.

Each build side runs the `picforge pearl build` command in a fresh process (start-up included) into a fresh
directory; "CPU s" is that process's user + system seconds (with its children). The parse-only loop is the part no
implementation can skip: the same spaCy pipeline over the same sentences (`nlp.pipe` + `phrase_occurrences`), then
the count >= 2 filter; its row counts its start-up too, and lines after the table give the loop alone and what
encoding each kept phrase once costs (the default encoder, one batch call). `--against REV` checks REV out into a
temporary git worktree and runs its code on the same run; the output comparison reads both builds: phrases, lexical
type shares, augmentations by kind, and how many phrases got other WordNet replacements, other entity types or
other hard negatives.

    python bench/pearl_throughput.py [--run MINING_RUN] [--max-sentences N] [--against REV] [--keep DIR]
                                     [--no-baseline] [-- BEAM FLAGS]
"""
import argparse
import collections
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT


def cpu_seconds(who):
    """User + system CPU seconds of this process (resource.RUSAGE_SELF) or of its finished children
    (resource.RUSAGE_CHILDREN)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def build_side(code_root, run_dir, out, build_args):
    """`picforge pearl build` of the code at `code_root` as a child process: its CPU and wall seconds."""
    env = dict(os.environ, PYTHONPATH=code_root)
    cpu, wall = cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "picforge.cli", "pearl", "build", "--run", run_dir, "--out", out,
                    *build_args], cwd=code_root, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return {"cpu": cpu_seconds(resource.RUSAGE_CHILDREN) - cpu, "wall": time.perf_counter() - wall}


def baseline_side(run_dir, queue):
    """The parse-only loop (spaCy + constituent mapping + count >= 2), timed in this (child) process: its start-up
    (imports, reading the sentences, loading spaCy) and the loop itself."""
    cpu, wall = cpu_seconds(resource.RUSAGE_SELF), time.perf_counter()
    from companions.pearl.constituents import dependency_constituents, phrase_occurrences
    from companions.pearl.corpus import load_parser, token_entities
    from picforge.rundir import RunDir

    texts = [r["text"] for r in RunDir(run_dir).iter_records("sentences", columns=["text"])]
    nlp = load_parser()
    start_up = cpu_seconds(resource.RUSAGE_SELF) - cpu
    counts = collections.Counter()
    for doc in nlp.pipe(texts, batch_size=128):
        for _, occurrence in phrase_occurrences(doc, dependency_constituents(doc), token_entities(doc)):
            if occurrence:
                counts[occurrence["phrase"]] += 1
    loop_cpu, loop_wall = cpu_seconds(resource.RUSAGE_SELF) - cpu, time.perf_counter() - wall
    kept = sorted(phrase for phrase, n in counts.items() if n >= 2)
    from picforge.encoders import encode, load_sentence_model

    model = load_sentence_model()
    before = cpu_seconds(resource.RUSAGE_SELF)
    encode(model, kept)
    queue.put({"cpu": loop_cpu, "start_up": start_up, "wall": loop_wall, "phrases": len(kept),
               "encode_kept": cpu_seconds(resource.RUSAGE_SELF) - before})


def run_baseline(run_dir):
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=baseline_side, args=(run_dir, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def mined_sample(max_sentences):
    """A mining run of the shared 103-page sample (made once per call, not timed), cut to max_sentences."""
    from pipeline.mine import mine
    from picforge.rundir import RunDir

    source = tempfile.mkdtemp(prefix="pearl-bench-mined-")
    mine(DEFAULT_INPUT, DEFAULT_WIC, source)
    if not max_sentences:
        return source
    run = RunDir(tempfile.mkdtemp(prefix="pearl-bench-cut-"))
    rows = list(RunDir(source).iter_records("sentences"))[:max_sentences]
    run.write_stage("sentences", rows, "sentence", inputs={"cut of": source}, options={"first": max_sentences})
    return run.root


def records_of(out):
    from companions.pearl.corpus import STAGE
    from picforge.rundir import RunDir

    return {r["phrase"]: r for r in RunDir(out).iter_records(STAGE)}


def output_changes(old, new):
    """Lines saying how the build `new` ({phrase: record}) differs from `old`."""
    shared = old.keys() & new.keys()
    lines = [f"phrases: {len(old):,} -> {len(new):,} ({len(shared):,} in both)"]
    for name, records in (("baseline", old), ("this code", new)):
        types = collections.Counter(r["lexical_type"] for r in records.values())
        shares = "  ".join(f"{lex} {100 * n / (len(records) or 1):.1f} %" for lex, n in sorted(types.items()))
        kinds = collections.Counter(a["kind"] for r in records.values() for a in r["augmentations"])
        negatives = sum(len(r["hard_negatives"]) for r in records.values())
        other = sum(r["entity_type"] == "OTHER" for r in records.values()) / (len(records) or 1)
        lines.append(f"{name:<10} types: {shares}  OTHER {100 * other:.1f} %  hard negatives {negatives:,}")
        lines.append(f"{'':<10} augmentations: " + "  ".join(f"{kind} {n:,}" for kind, n in sorted(kinds.items())))

    def differ(field):
        return sum(1 for p in shared if field(old[p]) != field(new[p]))

    def augmentations(kind):
        return lambda r: sorted(a["text"] for a in r["augmentations"] if a["kind"] == kind)

    lines.append(f"of the {len(shared):,} phrases in both: other lexical/entity label {differ(lambda r: r['label']):,}, "
                 f"other character augmentations {differ(augmentations('char-swap')) + differ(augmentations('char-drop')):,}, "
                 f"other WordNet replacements {differ(augmentations('synonym-wordnet')):,}, "
                 f"other hard negatives {differ(lambda r: sorted(r['hard_negatives'])):,}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="mining run directory with a `sentences` stage (default: mine the shared "
                                      "103-page sample first, untimed)")
    parser.add_argument("--max-sentences", type=int, help="with the default run: use only the first N sentences")
    parser.add_argument("--against", metavar="REV", help="also build with the code of git revision REV (the "
                                                         "baseline), and compare the outputs")
    parser.add_argument("--no-baseline", action="store_true", help="skip the parse-only loop")
    parser.add_argument("--keep", metavar="DIR", help="write the builds under DIR (kept) instead of a temporary folder")
    args, build_args = parser.parse_known_args()
    run_dir = args.run or mined_sample(args.max_sentences)
    articles = len(set(records_in(run_dir, "page_id")))
    sentences = len(records_in(run_dir, "sentence_id"))
    work = args.keep or tempfile.mkdtemp(prefix="pearl-bench-")
    print(f"input: {run_dir} ({articles} articles, {sentences:,} sentences)  cores: {os.cpu_count()}  "
          f"load average at start: {os.getloadavg()[0]:.1f}")
    print(f"{'side':<40}{'phrases':>9}{'wall s':>9}{'CPU s':>9}{'CPU s/article':>15}{'vs this code':>14}")
    rows = []
    if not args.no_baseline:
        rows.append(("parse-only loop (spaCy + mapping)", run_baseline(run_dir)))
    worktree = None
    if args.against:
        worktree = tempfile.mkdtemp(prefix="pearl-bench-code-")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", worktree, args.against], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        old_out = os.path.join(work, "against")
        rows.append((f"pearl build at {args.against}", dict(build_side(worktree, run_dir, old_out, build_args),
                                                              out=old_out)))
    new_out = os.path.join(work, "this")
    new = dict(build_side(ROOT, run_dir, new_out, build_args), out=new_out)
    rows.append(("pearl build (this code)", new))
    for name, result in rows:
        if "out" in result:
            result["phrases"] = len(records_of(result["out"]))
        print(f"{name:<40}{result['phrases']:>9,}{result['wall']:>9.1f}{result['cpu']:>9.1f}"
              f"{result['cpu'] / articles:>15.3f}{result['cpu'] / new['cpu']:>13.2f}x")
    for name, result in rows:
        if "start_up" in result:
            loop = result["cpu"] - result["start_up"]
            print(f"{name}: start-up (imports, reading, spaCy load) {result['start_up']:.1f} CPU s, the loop itself "
                  f"{loop:.1f} CPU s, {loop / articles:.3f} per article")
            print(f"each kept phrase encoded once (the least its hard negatives need), not in any row: "
                  f"{result['encode_kept']:.1f} CPU s, {result['encode_kept'] / articles:.3f} per article")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    if args.against:
        for line in output_changes(records_of(old_out), records_of(new_out)):
            print(line)
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", worktree], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def records_in(run_dir, column):
    from picforge.rundir import RunDir

    return [r[column] for r in RunDir(run_dir).iter_records("sentences", columns=[column])]


if __name__ == "__main__":
    main()
