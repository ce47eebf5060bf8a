"""One guard for every output (picforge/paths.py): no verb writes over, into or around what it reads, over a file an
earlier verb of its run read, or into a run or release it does not own; releases hold plain files and are replaced
only when picforge wrote them. Driven through `picforge` on runs and releases made from the real 103-page sample."""
import argparse
import os
import pathlib
import shutil

import pytest

from picforge.ledger import Ledger
from picforge import cli
from picforge.paths import declared_output
from tests.cli_helpers import picforge_in_child, verbs
from tests.reliability.test_destructive_paths import tree_digest
from tests.reliability.test_worker_quality import (GOLD, expert_annotated, exported_inputs, results_rows,
                                                   write_results)

pytestmark = pytest.mark.slow
# Option names that always name something a verb writes.
OUTPUT_NAMES = {"--out", "--json", "--to", "--cache", "--cache-dir", "--categories-cache-dir"}
# Values for required arguments that are not paths.
SOME_FILE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "data" / "WiC_dataset.zip"
NOT_PATHS = {"batch": "b1", "annotators": "a1", "release_id": "1-1", "experts": "a1,a2", "tiebreak": "a3"}


def argv_writing(words, parser, output, run, value, release):
    """The command line of verb `words` with `output` set to `value`, every other required output to a new path
    beside `run`, a required --release to `release` (a release matching its MANIFEST.json, which every release reader
    checks first) and every other required argument (the first of each required group) to `run`."""
    argv = list(words)
    first_of_groups = [group._group_actions[0] for group in parser._mutually_exclusive_groups if group.required]
    for action in parser._actions:
        required = action.required or action in first_of_groups or (
            not action.option_strings and action.nargs not in ("?", "*", 0, argparse.PARSER))
        if action is output or not required or isinstance(action, argparse._HelpAction):
            continue
        existing = getattr(action.type, "existing", None)  # picforge.options.existing_path: a real file or folder
        filler = NOT_PATHS.get(action.dest) or (str(SOME_FILE) if existing == "file" else str(release)
                                                if existing == "release" else str(run) if existing else
                                                "1" if action.type not in (None, str) else
                                                str(run.parent / f"fresh-{action.dest}") if declared_output(action)
                                                else str(run))
        argv += [action.option_strings[0], filler] if action.option_strings else [filler]
    return argv + ([output.option_strings[0], value] if output.option_strings else [value])


def test_every_output_of_every_verb_is_declared_and_guarded(mined_103, release_103, capsys):
    before = tree_digest(mined_103)
    registered = verbs()
    assert len(registered) >= 48
    checked = []
    for words, parser in registered:
        for action in parser._actions:
            names = set(action.option_strings)
            if names & OUTPUT_NAMES:
                assert declared_output(action), f"picforge {' '.join(words)} {'/'.join(names)}: not add_output"
            if not declared_output(action):
                continue
            # Inside a stage folder of the run the verb reads: inside an input, and inside a run it does not own.
            argv = argv_writing(words, parser, action, mined_103, str(mined_103 / "select" / "written-here"),
                                release_103)
            assert cli.main(argv) == 2, argv
            err = capsys.readouterr().err
            assert "sits inside" in err and "nothing was written" in err, (argv, err)
            checked.append(" ".join(words + [action.option_strings[0]]))
    assert len(checked) >= 25, checked  # every verb that writes a named output
    assert tree_digest(mined_103) == before


def test_the_examples_of_the_issue_are_refused_and_touch_nothing(annotated_103, release_103, tmp_path,
                                                                 enwiki_sample_103, wic_zip):
    run = tmp_path / "run"
    shutil.copytree(annotated_103, run)
    Ledger.for_run(str(run)).dispose()  # the ledger exists (`annotate report` only reads one: it creates none)
    assert picforge_in_child("annotate", "report", "--run", run)[0] == 0
    release = tmp_path / "rel"
    shutil.copytree(release_103, release)
    dump = tmp_path / "data" / "dump1" / "x.xml.bz2"
    dump.parent.mkdir(parents=True)
    shutil.copy(enwiki_sample_103, dump)
    link = tmp_path / "link-to-run"
    link.symlink_to(run)
    before = {root: tree_digest(root) for root in (run, release, dump.parent)}
    cases = [
        (["mcphrasy", "release", "--run", run, "--out", run], "is the run"),
        (["annotate", "report", "--run", run, "--out", run / "ledger.sqlite"], "sits inside the run"),
        (["annotate", "report", "--run", run, "--json", link / "funnel.json"], "sits inside the run"),
        (["release", "evaluate", "--release", release, "--out", release / "MANIFEST.json"], f"sits inside the release {release}"),
        (["mine", "--input", tmp_path / "data" / "dump*" / "x.xml.bz2", "--wic", wic_zip, "--out", dump.parent],
         "contains the input"),
        (["release", "evaluate", "--release", release, "--out", run / "scores.json"], "sits inside the run"),
    ]
    for argv, says in cases:
        code, _, err = picforge_in_child(*argv)
        assert code == 2 and says in err and "nothing was written" in err and "Traceback" not in err, (argv, err)
    assert {root: tree_digest(root) for root in before} == before


def test_review_cannot_overwrite_the_results_file_it_ingested(mined_103, tmp_path):
    run, truths = expert_annotated(mined_103, tmp_path)
    assert picforge_in_child("annotate", "mturk", "export", "--run", run, "--batch", "sim", "--gold", GOLD,
                             "--questions-per-hit", "10", "--assignments", "1")[0] == 0
    from picforge.ledger import Ledger
    ledger = Ledger.for_run(str(run))
    with ledger.read() as q:
        plan = q.batch("sim")["meta"]
    ledger.dispose()
    results = tmp_path / "Batch_1_batch_results.csv"
    write_results(results, results_rows(plan, truths, "careful", lambda truth: truth,
                                        exported_inputs(str(run), "sim")))
    assert picforge_in_child("annotate", "mturk", "ingest", "--run", run, "--results", results)[0] == 0
    downloaded = results.read_bytes()
    code, _, err = picforge_in_child("annotate", "mturk", "review", "--run", run, "--batch", "sim", "--out", results)
    assert code == 2 and "an earlier verb of the run" in err and "read this file" in err, err
    assert results.read_bytes() == downloaded
    assert picforge_in_child("annotate", "mturk", "review", "--run", run, "--batch", "sim",
                             "--out", tmp_path / "review.csv")[0] == 0


def test_publish_replaces_only_a_release_it_published(release_103, tmp_path):
    published = tmp_path / "published"
    assert picforge_in_child("release", "publish", "--release", release_103, "--to", published, "--live")[0] == 0
    assert picforge_in_child("release", "publish", "--release", release_103, "--to", published, "--live")[0] == 0  # its own: replaced
    (published / "NOTES.md").write_text("my notes")
    code, _, err = picforge_in_child("release", "publish", "--release", release_103, "--to", published, "--live")
    assert code == 2 and "not a published release" in err and "would delete NOTES.md" in err, err
    assert (published / "NOTES.md").read_text() == "my notes"
    other = tmp_path / "not-ours"
    other.mkdir()
    (other / "MANIFEST.json").write_text('{"files": {}}')
    (other / "data.csv").write_text("a,b\n")
    code, _, err = picforge_in_child("release", "publish", "--release", release_103, "--to", other, "--live")
    assert code == 2 and "MANIFEST.json" in err and "data.csv" in err, err
    assert (other / "data.csv").exists()
    a_file = tmp_path / "thesis.pdf"
    a_file.write_text("pdf")
    code, _, err = picforge_in_child("release", "publish", "--release", release_103, "--to", a_file, "--live")
    assert code == 2 and "is a file" in err, err
    assert a_file.read_text() == "pdf"
    assert not [n for n in os.listdir(tmp_path) if ".old-" in n or ".partial-" in n]


@pytest.mark.parametrize("plant", ["symlink", "hardlink", "fifo", "linked-folder"])
def test_no_link_leaves_a_release(release_103, tmp_path, plant):
    release = tmp_path / "rel"
    shutil.copytree(release_103, release)
    secret = tmp_path / "secret.txt"
    data = release / "PS" / "test.json"
    secret.write_bytes(data.read_bytes())  # the same bytes: the MANIFEST's sha256 holds, only the link differs
    if plant == "symlink":
        data.unlink()
        data.symlink_to(secret)
    elif plant == "hardlink":
        data.unlink()
        os.link(secret, data)
    elif plant == "fifo":
        (release / "README.md").unlink()
        os.mkfifo(release / "README.md")
        data = release / "README.md"
    else:
        shutil.move(release / "PS", tmp_path / "PS-outside")
        (release / "PS").symlink_to(tmp_path / "PS-outside")
        data = release / "PS"
    for argv in (["release", "publish", "--release", release, "--to", tmp_path / "out", "--live"], ["release", "evaluate", "--release", release, "--baseline", "PS"]):
        code, _, err = picforge_in_child(*argv, timeout=300)
        assert code == 2 and f"{data}: is " in err and "plain files" in err, (argv, err)
    assert not (tmp_path / "out").exists()
