"""`picforge` reports errors it can name in one line (exit 2) and prints a traceback only with -v."""
import pytest

from picforge.cli import main
from picforge.errors import InputError


def test_input_error_is_one_line_exit_2(tmp_path, capsys):
    assert main(["evaluate", "--release", str(tmp_path / "missing"), "--baseline", "PS"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0] == (f"picforge: error: {tmp_path / 'missing'}: no such path; give the release folder "
                      "`picforge build` or a companion's `release` verb wrote")


def test_os_error_on_a_named_path_is_one_line_exit_2(tmp_path, capsys):
    # a folder where the SimLex pairs file is expected: the OS refuses to open it
    pairs, run = tmp_path / "pairs", tmp_path / "run"
    pairs.mkdir(), run.mkdir()
    assert main(["cosimlex", "candidates", "--pairs", str(pairs), "--run", str(run), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"picforge: error: {pairs}: ")
    assert "Traceback" not in err[0]


def test_verbose_shows_the_traceback(tmp_path):
    with pytest.raises(InputError, match="no such path"):
        main(["-v", "evaluate", "--release", str(tmp_path / "missing"), "--baseline", "PS"])


@pytest.mark.parametrize("verb", [["stsb-context", "export-validation"], ["cosimlex", "postprocess"],
                                  ["mcphrasy", "reconcile"]])
def test_verbs_that_read_a_run_take_run_and_still_accept_the_former_out(tmp_path, capsys, verb):
    missing = str(tmp_path / "no-run")
    assert main([*verb, "--run", missing]) == 2
    new = capsys.readouterr().err
    assert missing in new and "deprecated" not in new
    assert main([*verb, "--out", missing]) == 2
    old = capsys.readouterr().err
    assert old.startswith(f"picforge: --out here is deprecated (removed in 0.2.0): use --run (--out names what a "
                          f"command creates); reading {missing} as --run\n")
    assert old.splitlines()[1] == new.strip()


def a_release(folder):
    """A small release the core writer wrote (the plug-in companion's, one row): what --release accepts once it
    matches its MANIFEST.json, so a verb gets past that check to the one a test is about."""
    from picforge import release_writer
    from tests.plugin_companion.release import contents

    rows = [{"word": "cat", "count": 2}]
    release_writer.write_release(str(folder), lambda staging: contents(staging, rows, {"fingerprint": "f"}, "w",
                                                                        "other"))
    return folder


def test_evaluate_takes_run_for_its_contexts_and_still_accepts_the_former_contexts(tmp_path, capsys):
    release = a_release(tmp_path / "not-mcphrasy")
    assert main(["mcphrasy", "evaluate", "--release", str(release), "--contexts", str(tmp_path), "--device",
                 "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"picforge: --contexts here is deprecated (removed in 0.2.0): use --run (--run names an "
                          f"existing run a verb reads); reading {tmp_path} as --run\n")


@pytest.mark.parametrize("named", ["DirectRunner", "DaskRunner"])
def test_the_former_runner_names_still_give_ours_with_a_deprecation_warning(capsys, named):
    from apache_beam.options.pipeline_options import StandardOptions

    from picforge import options
    options.warn_once.cache_clear()
    chosen = options.pipeline_options(["--runner", named]).view_as(StandardOptions).runner
    assert chosen == options.RUNNER_ALIASES[named]
    assert capsys.readouterr().err == (f"picforge: --runner {named} is deprecated (removed in 0.2.0): use --runner "
                                       f"{chosen} (picforge runs its own runner under that name)\n")
    assert options.pipeline_options([]).view_as(StandardOptions).runner == options.EMBEDDED_RUNNER
    options.pipeline_options(["--runner", named])  # once per process: a verb builds its options once per stage
    assert capsys.readouterr().err == ""


torch = pytest.importorskip("torch")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU, so --device cuda is valid here")
@pytest.mark.parametrize("verb", [["pearl", "build", "--run", "{run}", "--out", "{out}"],
                                  ["mcphrasy", "groups", "--run", "{run}", "--out", "{out}"],
                                  ["mcphrasy", "evaluate", "--release", "{run}"]])
def test_encoding_verbs_take_device_cpu_and_refuse_cuda_without_a_gpu_in_one_line(tmp_path, capsys, verb):
    if "--release" in verb:  # a release that passes the MANIFEST check, which every release reader runs first
        a_release(tmp_path / "run")
    else:
        (tmp_path / "run").mkdir()  # an empty run: the device is checked before its stages are read
    argv = [arg.format(run=tmp_path / "run", out=tmp_path / "out") for arg in verb]
    assert main([*argv, "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("picforge: error: --device cuda: torch sees no CUDA device here")
    assert main([*argv, "--device", "cpu"]) == 2  # accepted: the error is the missing input, not the device
    assert "--device" not in capsys.readouterr().err
