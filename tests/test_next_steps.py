"""Every verb that succeeds ends with a `next:` line: annotate's from the ledger, the others from their own next_step."""
import importlib

from picforge import cli
from tests.test_option_help import parsers


def test_every_verb_outside_annotate_names_its_next_step():
    missing = []
    for command, package in cli.commands().items():
        if command in ("annotate", "mine"):
            continue  # their hints come from the ledger (annotation/next_step.py); mine's names the expert sheets

        for path, parser in parsers(cli.build_parser(command), "picforge"):
            func = parser.get_default("func")
            if path.startswith(f"picforge {command}") and func is not None:
                if not callable(getattr(importlib.import_module(func.__module__), "next_step", None)):
                    missing.append(path)
    assert missing == []


def test_publish_names_the_live_upload_then_evaluate(tmp_path):
    from release.cli import publish

    class Args:
        release, dest, live = str(tmp_path / "rel"), "hf://org/name", False
    assert publish.next_step(Args) == (f"picforge publish --release {tmp_path / 'rel'} --to hf://org/name --live   "
                                       "(uploads what the plan lists)")
    Args.live = True
    assert publish.next_step(Args) == f"picforge evaluate --release {tmp_path / 'rel'}"
