"""`picforge` reports errors it can name in one line (exit 2) and prints a traceback only with -v."""
import pytest

from picforge.cli import main
from picforge.errors import InputError


def test_input_error_is_one_line_exit_2(tmp_path, capsys):
    assert main(["release", "evaluate", "--release", str(tmp_path / "missing"), "--baseline", "PS"]) == 2
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
        main(["-v", "release", "evaluate", "--release", str(tmp_path / "missing"), "--baseline", "PS"])


def a_release(folder):
    """A small release the core writer wrote (the plug-in companion's, one row): what --release accepts once it
    matches its MANIFEST.json, so a verb gets past that check to the one a test is about."""
    from picforge import release_writer
    from tests.plugin_companion.release import contents

    rows = [{"word": "cat", "count": 2}]
    release_writer.write_release(str(folder), lambda staging: contents(staging, rows, {"fingerprint": "f"}, "w",
                                                                        "other", None))
    return folder


@pytest.mark.parametrize("named", ["DirectRunner", "DaskRunner"])
def test_beams_stock_direct_and_dask_runners_are_refused_naming_ours(named):
    from picforge import options
    with pytest.raises(InputError, match=rf"^--runner {named}: Beam's stock runner of that name .*; give --runner "
                                         rf"{options.REFUSED_RUNNERS[named][1]} \(nothing was run\)$"):
        options.pipeline_options(["--runner", named])


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
