"""A user's mistake on any command (bad path, damaged file, impossible number) is one line naming the file or
option, exit 2, never a traceback."""
import pytest

from picforge import cli

WIC = "{wic}"
# (case, argv with {placeholders} from bad_files, text the error line must name)
CASES = [
    ("mine: input is a folder", ["mine", "--input", "{dir}", "--wic", WIC, "--out", "{tmp}/run"], "{dir}"),
    ("mine: gzip named .bz2", ["mine", "--input", "{gzip_named_bz2}", "--wic", WIC, "--out", "{tmp}/run"], "is gzip"),
    ("mine: empty dump", ["mine", "--input", "{empty_xml}", "--wic", WIC, "--out", "{tmp}/run"], "empty file"),
    ("mine: text file as dump", ["mine", "--input", "{text}", "--wic", WIC, "--out", "{tmp}/run"], "{text}"),
    ("mine: --out is a file", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{text}"], "{text}"),
    ("mine: --out unwritable", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{unwritable}"], "{unwritable}"),
    ("mine: WiC zip with a bad CRC", ["mine", "--input", "{dump}", "--wic", "{wic_bad_crc}", "--out", "{tmp}/run"],
     "{wic_bad_crc}"),
    ("mine: WiC zip not UTF-8", ["mine", "--input", "{dump}", "--wic", "{wic_bad_utf8}", "--out", "{tmp}/run"],
     "not UTF-8"),
    ("mine: WiC is a folder", ["mine", "--input", "{dump}", "--wic", "{dir}", "--out", "{tmp}/run"], "{dir}"),
    ("mine: --top-n -5", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{tmp}/run", "--top-n", "-5"],
     "--top-n"),
    ("mine: --min-similarity NaN", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{tmp}/run",
                                    "--min-similarity", "NaN"], "--min-similarity"),
    ("mine: --quantile-window 0.1", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{tmp}/run",
                                     "--quantile-window", "0.1"], "--quantile-window"),
    ("mine: --spacy-batch-size 0", ["mine", "--input", "{dump}", "--wic", WIC, "--out", "{tmp}/run",
                                    "--spacy-batch-size", "0"], "--spacy-batch-size"),
    ("stsb-context: --stsb is a folder", ["stsb-context", "generate", "--stsb", "{dir}", "--out", "{tmp}/stsb",
                                          "--offline"], "{dir}"),
    ("stsb-context: --out is a file", ["stsb-context", "generate", "--stsb", "{stsb}", "--out", "{text}",
                                       "--offline"], "{text}"),
    ("stsb-context: --timeout NaN", ["stsb-context", "generate", "--stsb", "{stsb}", "--out", "{tmp}/stsb",
                                     "--offline", "--timeout", "NaN"], "--timeout"),
    ("stsb-context: --temperature inf", ["stsb-context", "generate", "--stsb", "{stsb}", "--out", "{tmp}/stsb",
                                         "--offline", "--temperature", "inf"],
     "--temperature"),
    ("stsb-context: malformed --base-url", ["stsb-context", "generate", "--stsb", "{stsb}", "--out", "{tmp}/stsb",
                                            "--base-url", "http://[::1/v1"], "--base-url"),
    ("cosimlex postprocess: --scale-max NaN", ["cosimlex", "postprocess", "--run", "{dir}",
                                               "--scale-max", "NaN"], "--scale-max"),
    ("cosimlex evaluate: predictions not a sheet", ["cosimlex", "evaluate", "--run", "{dir}", "--predictions",
                                                    "{text}"], "{text}"),
    ("pearl paraphrase: --max-tokens -1", ["pearl", "paraphrase", "--run", "{dir}", "--offline", "--max-tokens",
                                           "-1"], "--max-tokens"),
    ("pearl paraphrase: --temperature NaN", ["pearl", "paraphrase", "--run", "{dir}", "--offline",
                                             "--temperature", "NaN"], "--temperature"),
    ("pearl build: --max-cosine inf", ["pearl", "build", "--run", "{dir}", "--out", "{tmp}/pearl", "--max-cosine",
                                       "inf"], "--max-cosine"),
    ("mcphrasy groups: --group-size 1", ["mcphrasy", "groups", "--run", "{dir}", "--out", "{tmp}/mc", "--group-size", "1"],
     "--group-size"),
    ("mcphrasy contexts: --max-contexts 0", ["mcphrasy", "contexts", "--phrases", "{text}", "--run", "{dir}", "--out", "{tmp}/mc",
                                             "--max-contexts", "0"], "--max-contexts"),
    ("build: --run is a file", ["build", "--run", "{text}", "--out", "{tmp}/release"], "{text}"),
    ("build: --out is a file", ["build", "--run", "{dir}", "--out", "{text}"], "{dir}"),
    ("publish: release is a file", ["release", "publish", "--release", "{text}", "--to", "s3://bucket/prefix"], "{text}"),
    ("evaluate: release is missing", ["release", "evaluate", "--release", "{missing}"], "{missing}"),
    ("annotate report: --run is a file", ["annotate", "report", "--run", "{text}"], "{text}"),
    ("annotate: --ledger not a URL", ["annotate", "report", "--run", "{dir}", "--ledger", "not a url"], "--ledger"),
    ("annotate export expert: --per-annotator -1", ["annotate", "export", "expert", "--run", "{dir}",
                                                    "--annotators", "ann", "--per-annotator", "-1"],
     "--per-annotator"),
    ("annotate ingest expert: sheet is a folder", ["annotate", "ingest", "expert", "--run", "{dir}",
                                                   "--no-grammar", "--sheets", "{dir}"], "{dir}"),
    ("annotate ingest expert: xlsx that is text", ["annotate", "ingest", "expert", "--run", "{dir}",
                                                   "--no-grammar", "--sheets", "{fake_xlsx}"], "{fake_xlsx}"),
    ("mturk create: --reward NaN", ["annotate", "mturk", "create", "--run", "{dir}", "--batch", "b1",
                                    "--reward", "NaN"], "--reward"),
    ("mturk create: --reward Infinity", ["annotate", "mturk", "create", "--run", "{dir}", "--batch", "b1",
                                         "--reward", "Infinity"], "--reward"),
    ("mturk create: --max-spend Infinity", ["annotate", "mturk", "create", "--run", "{dir}", "--batch", "b1",
                                            "--max-spend", "Infinity"], "--max-spend"),
    ("mturk create: --max-spend NaN", ["annotate", "mturk", "create", "--run", "{dir}", "--batch", "b1",
                                       "--max-spend", "NaN"], "--max-spend"),
]


@pytest.fixture(scope="module")
def places(bad_files, tmp_path_factory, wic_zip, enwiki_sample, stsb_file):
    tmp = tmp_path_factory.mktemp("mistakes")
    fake_xlsx = tmp / "returned.xlsx"
    fake_xlsx.write_text("annotator,q1\nann,some answer\n")
    return dict(bad_files, tmp=str(tmp), wic=str(wic_zip), dump=str(enwiki_sample), stsb=str(stsb_file),
                fake_xlsx=str(fake_xlsx))


@pytest.mark.parametrize("case, argv, named", CASES, ids=[case for case, _, _ in CASES])
def test_a_mistake_is_one_line_naming_it(case, argv, named, places, capsys):
    argv = [part.format(**places) for part in argv]
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # argparse's own refusal of an option value
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    last = [line for line in err.splitlines() if line.strip()][-1]
    assert "error:" in last and named.format(**places) in last, last
