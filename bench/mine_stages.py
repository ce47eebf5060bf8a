"""CPU seconds of each mining job, per 1,000 articles and per million words of prose, and the fixed cost every Beam
job pays (start-up, model loads): the inputs of docs/scaling.md.

Runs `picforge mine --direct_num_workers 1` in a fresh process four times: with `--job-per-stage` and as one job
(the default), each on the input (optionally repeated K times with fresh page ids and titles) and on its first
article alone (`--max-pages 1`, where a job's CPU is almost all fixed cost). CPU seconds per job come
from the stage manifests (`cpu_seconds`, `job`); the process's CPU beyond their sum is the launcher's (imports,
run-directory bookkeeping). Model loads and reading the dump alone are timed in a process of their own, and
`--encoders` times the encoders on the run's in-window sentences with one torch thread: the bundled MiniLM and a
randomly initialised model of SimCSE-large's shape (RoBERTa-large; the speed does not depend on the weights).

    python bench/mine_stages.py [--input DUMP] [--wic WIC_ZIP] [--repeat K] [--encoders] [--keep DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from mine_child import run_mine
from sample_paths import DEFAULT_INPUT, DEFAULT_WIC, ROOT
from scaled_dump import write_scaled_dump

from pipeline import MINING_STAGES

ENCODER_STAGES = ("pairs", "domains")
PROBES = """
import json, os, sys, time
t = time.process_time()
import apache_beam, pipeline.mine  # noqa: F401  what `picforge mine` imports before its first job
imports = time.process_time() - t
from pipeline.stages.phrases import load_spacy
t = time.process_time(); load_spacy(); spacy = time.process_time() - t
from picforge.encoders import load_sentence_model
t = time.process_time(); load_sentence_model(device="cpu"); encoder = time.process_time() - t
from pipeline.dump.reader import read_pages
t = time.process_time(); pages = sum(1 for _ in read_pages(sys.argv[1])); read = time.process_time() - t
print(json.dumps({"imports": imports, "spacy": spacy, "encoder": encoder, "read_pages": pages,
                  "read_seconds_per_mb": read / (os.path.getsize(sys.argv[1]) / 1e6)}))
"""


def stage_figures(out):
    """{stage: manifest} of a finished run, and the run's articles and prose words (sum of Sentence.n_words)."""
    from picforge.rundir import RunDir

    run = RunDir(out)
    manifests = {stage: run.require(stage) for stage in MINING_STAGES}
    words = sum(row["n_words"] for row in run.iter_records("sentences", columns=["n_words"]))
    return manifests, manifests["read-dump"]["records"], words


def records_in(manifests, stage):
    """What a stage reads: pages for read-dump, the upstream stage's records for the others."""
    if stage == "read-dump":
        return manifests[stage]["counters"].get("read-dump/pages-read", 0)
    return manifests[MINING_STAGES[MINING_STAGES.index(stage) - 1]]["records"]


def encoded_texts(out):
    """(distinct sentence texts `pairs` embeds, distinct category texts `domains` embeds) in a finished run,
    recounted with pairs.candidate_pairs (both stages embed each distinct text once)."""
    from picforge.rundir import RunDir
    from pipeline.mine_stages import MineOptions
    from pipeline.stages.domains import category_text, page_of
    from pipeline.stages.pairs import candidate_pairs

    run, options = RunDir(out), MineOptions()
    sentences = {row["sentence_id"]: row for row in run.iter_records("sentences")}
    used = set()
    for group in run.iter_records("group"):
        contexts = [sentences[sid] for sid in group["contexts"] if sid in sentences]
        _, pairs = candidate_pairs(group["phrase"], contexts, options.seed, options.max_contexts, options.min_words,
                                   options.max_words, options.max_length_diff)
        used.update(sid for pair in pairs for sid in pair)
    pages = {page_of(row[key]) for row in run.iter_records("pairs") for key in ("sentence_id1", "sentence_id2")}
    categories = {category_text(page["categories"]) for page in run.iter_records("clean") if page["page_id"] in pages}
    return len({sentences[sid]["text"] for sid in used}), len(categories - {""})


def probes(dump):
    """CPU seconds, in a fresh process, of `picforge mine`'s imports, of loading spaCy and the bundled encoder, and
    of reading the dump's pages alone (bz2 + XML, what one worker does per dump file) per compressed MB."""
    done = subprocess.run([sys.executable, "-c", PROBES, dump], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def jobs_of(manifests):
    """The run's Beam jobs in stage order, each the tuple of stages it made (from the manifests' `job`)."""
    jobs = []
    for stage in MINING_STAGES:
        job = tuple(manifests[stage]["job"])
        if job not in jobs:
            jobs.append(job)
    return jobs


def print_jobs(manifests, articles, words, fixed, label):
    """One row per job: records in and out, CPU of the run, its fixed part, and the rest per unit of input."""
    jobs = jobs_of(manifests)
    cpu = {job: manifests[job[0]]["cpu_seconds"] for job in jobs}
    variable = {job: cpu[job] - fixed[job] for job in jobs}
    total = sum(variable.values())
    print(f"\n{label}: {articles:,} articles, {words:,} words of prose")
    print(f"{'job':<18}{'records in':>12}{'records out':>13}{'CPU s':>9}{'fixed CPU s':>13}{'variable':>10}"
          f"{'per 1k articles':>17}{'per M words':>13}{'share':>8}")
    for job in jobs:
        print(f"{' + '.join(job):<18}{records_in(manifests, job[0]):>12,}{manifests[job[-1]]['records']:>13,}"
              f"{cpu[job]:>9.2f}{fixed[job]:>13.2f}{variable[job]:>10.2f}{variable[job] / articles * 1000:>17.2f}"
              f"{variable[job] / words * 1e6:>13.1f}{variable[job] / total:>8.1%}")
    print(f"{'all jobs':<18}{'':>12}{'':>13}{sum(cpu.values()):>9.2f}{sum(fixed.values()):>13.2f}{total:>10.2f}"
          f"{total / articles * 1000:>17.2f}{total / words * 1e6:>13.1f}{1:>8.0%}")


def fixed_costs(one_article, probed):
    """CPU seconds each job pays whatever its input: the one-article run's, plus one encoder load for the first job
    that embeds (one article forms no pair across pages, so that run loads none; a process keeps the model)."""
    fixed, loaded = {}, False
    for job in jobs_of(one_article):
        first_encoder_job = not loaded and any(stage in job for stage in ENCODER_STAGES)
        fixed[job] = one_article[job[0]]["cpu_seconds"] + (probed["encoder"] if first_encoder_job else 0.0)
        loaded = loaded or first_encoder_job
    return fixed


def encoder_rates(out, limit=256):
    """Sentences per CPU-second (one torch thread) of MiniLM and of a SimCSE-large-shaped model on in-window sentences."""
    script = f"""
import json, time, torch
torch.set_num_threads(1)
from picforge.rundir import RunDir
from picforge.encoders import load_sentence_model, encode
from sentence_transformers import SentenceTransformer, models
from transformers import RobertaConfig, RobertaModel
from pipeline.mine_stages import MineOptions as O
texts = [r["text"] for r in RunDir({out!r}).iter_records("sentences")
         if O.min_words <= r["n_words"] <= O.max_words][:{limit}]
minilm = load_sentence_model(device="cpu")
large = SentenceTransformer(modules=[models.Transformer(minilm[0].auto_model.name_or_path),
                                     models.Pooling(1024, pooling_mode="cls")], device="cpu")
large[0].model = RobertaModel(RobertaConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                            intermediate_size=4096, vocab_size=50265, max_position_embeddings=514,
                                            type_vocab_size=1, pad_token_id=1), add_pooling_layer=False).eval()
rates = {{}}
for name, model in (("MiniLM-L6 (22 M)", minilm), ("RoBERTa-large shape (355 M)", large)):
    encode(model, texts[:64])
    t = time.process_time(); encode(model, texts); rates[name] = len(texts) / (time.process_time() - t)
print(json.dumps({{"sentences": len(texts), "rates": rates,
                  "params": {{"MiniLM-L6 (22 M)": sum(p.numel() for p in minilm.parameters()),
                              "RoBERTa-large shape (355 M)": sum(p.numel() for p in large.parameters())}}}}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=DEFAULT_INPUT)
    parser.add_argument("--wic", default=DEFAULT_WIC)
    parser.add_argument("--repeat", type=int, default=1, help="mine K copies of the input's pages (default 1)")
    parser.add_argument("--encoders", action="store_true", help="also time MiniLM and a SimCSE-large-shaped encoder")
    parser.add_argument("--keep", help="write the run directories here and keep them (default: a temporary folder)")
    args = parser.parse_args(argv)
    work = args.keep or tempfile.mkdtemp(prefix="mine-stages-")
    os.makedirs(work, exist_ok=True)
    dump = args.input
    if args.repeat > 1:
        dump = os.path.join(work, f"repeat{args.repeat}.xml.bz2")
        write_scaled_dump(args.input, args.repeat, dump)
    print(f"input: {args.input} x{args.repeat}  CPUs: {os.cpu_count()}  load 1m: {os.getloadavg()[0]:.2f}")
    runs = {}
    for name, extra in (("one article", ["--job-per-stage", "--max-pages", "1"]),
                        ("one article, one job", ["--max-pages", "1"]), ("input", ["--job-per-stage"]),
                        ("input, one job", [])):
        out = os.path.join(work, name.replace(", ", "-").replace(" ", "-"))
        shutil.rmtree(out, ignore_errors=True)
        wall, cpu = run_mine(dump, args.wic, out, ["--direct_num_workers", "1", *extra])
        runs[name] = (out, stage_figures(out))
        manifests = runs[name][1][0]
        jobs_cpu = sum(manifests[job[0]]["cpu_seconds"] for job in jobs_of(manifests))
        print(f"{name:<21} jobs {len(jobs_of(manifests))}  wall {wall:7.1f} s  process CPU {cpu:7.2f} s  "
              f"in jobs {jobs_cpu:7.2f} s  launcher (imports, bookkeeping) {cpu - jobs_cpu:6.2f} s  "
              f"triplets {manifests['select']['records']}")
    probed = probes(args.input)
    print(f"fixed costs, CPU s in a fresh process: imports of `picforge mine` {probed['imports']:.2f}, "
          f"spaCy load {probed['spacy']:.2f}, sentence encoder load {probed['encoder']:.2f}; reading the dump's "
          f"{probed['read_pages']} pages alone (bz2 + XML): {probed['read_seconds_per_mb']:.2f} CPU s per compressed MB")
    manifests, articles, words = runs["input"][1]
    fixed = fixed_costs(runs["one article"][1][0], probed)
    print_jobs(manifests, articles, words, fixed, f"input x{args.repeat}, --job-per-stage")
    sentences, pages = encoded_texts(runs["input"][0])
    pairs, domains = ("pairs",), ("domains",)
    print(f"\nencoder stages: pairs embedded {sentences:,} distinct sentences "
          f"({(manifests['pairs']['cpu_seconds'] - fixed[pairs]) / max(sentences, 1) * 1000:.2f} CPU ms each "
          f"beyond the fixed cost), domains {pages:,} category texts "
          f"({(manifests['domains']['cpu_seconds'] - fixed[domains]) / max(pages, 1) * 1000:.2f} CPU ms each)")
    if args.encoders:
        found = encoder_rates(runs["input"][0])
        print(f"encoder alone, one torch thread, {found['sentences']} in-window sentences, batch 64:")
        for name, rate in found["rates"].items():
            print(f"  {name:<28}{found['params'][name] / 1e6:>7.1f} M parameters  {rate:8.1f} sentences per CPU-second")
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
