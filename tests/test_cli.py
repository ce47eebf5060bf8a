"""`picforge` reports errors it can name in one line (exit 2) and prints a traceback only with -v."""
import pytest

from picforge.cli import main
from picforge.errors import InputError


def test_input_error_is_one_line_exit_2(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "missing"), "--baseline", "PS"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"picforge: error: {tmp_path / 'missing'}/PS/train.json: no such file; ")
    assert err[0].endswith(f"or {tmp_path / 'missing'} is not a release built by `picforge build`")


def test_os_error_on_a_named_path_is_one_line_exit_2(tmp_path, capsys):
    # a folder where a predictions file is expected: the OS refuses to open it
    assert main(["cosimlex", "evaluate", str(tmp_path), "--gold", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"picforge: error: {tmp_path}: ")
    assert "Traceback" not in err[0]


def test_verbose_shows_the_traceback(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        main(["-v", "evaluate", str(tmp_path / "missing"), "--baseline", "PS"])


@pytest.mark.parametrize("verb", [["stsb-context", "export-validation"], ["cosimlex", "postprocess"],
                                  ["mcphrasy", "reconcile"]])
def test_verbs_that_read_a_run_take_run_and_still_accept_the_former_out(tmp_path, capsys, verb):
    missing = str(tmp_path / "no-run")
    assert main([*verb, "--run", missing]) == 2
    new = capsys.readouterr().err
    assert missing in new and "--out is now" not in new
    assert main([*verb, "--out", missing]) == 2
    old = capsys.readouterr().err
    assert old.startswith(f"picforge: --out is now --run here (--out names what a command creates); reading {missing} "
                          "as --run\n")
    assert old.splitlines()[1] == new.strip()
