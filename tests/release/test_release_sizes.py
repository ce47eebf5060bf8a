"""Numbers with their size: the card gives the items of every config and split and flags a split too small to
evaluate on, the build warns of it, and the Hub YAML header still loads with `datasets`."""
import re

from datasets import load_dataset

from picforge.release_writer import read_manifest, size_warnings


def test_card_and_build_flag_every_split_under_30_items(picforge, run_dir, tmp_path, capsys):
    out = tmp_path / "release"
    assert picforge("build", "--run", run_dir, "--out", out) == 0
    printed = capsys.readouterr().out
    counts = read_manifest(out)["counts"]
    assert min(n for splits in counts.values() for n in splits.values()) < 30  # the fixture's splits are small
    card = (out / "README.md").read_text(encoding="utf-8")
    statistics = card.split("## Statistics\n\n", 1)[1].split("\n## ", 1)[0]
    assert statistics.startswith("Items per config and split (a split of under 30 items is too small to evaluate on)")
    rows = re.findall(r"^\| (\S+) \| (train|validation|test) \| ([\d,]+) \| (.*) \|$", statistics, re.M)
    assert {(config, split): int(n) for config, split, n, _ in rows} == {
        (config, split): n for config, splits in counts.items() for split, n in splits.items()}
    for config, split, n, note in rows:
        assert (note == "**too small to evaluate on** (under 30 items)") == (int(n) < 30)
        warned = f"warning: {config} {split} has {n} item"
        assert (warned in printed) == (int(n) < 30)
    assert read_manifest(out)["small_splits"]["PSD"] == {s: n for s, n in counts["PSD"].items() if n < 30}
    # a release of one PS test row (the issue's) is warned of in those words
    assert size_warnings({"small_splits": {"PS": {"test": 1}}}) == [
        "warning: PS test has 1 item, under 30: too small to evaluate on (the card says so)"]
    # the YAML header's configs stay what the Hub viewer reads: every config loads by name with its split sizes
    for config, splits in counts.items():
        loaded = load_dataset(str(out), config)
        assert {split: loaded[split].num_rows for split in loaded} == splits
    assert picforge("build", "--run", run_dir, "--out", out) == 0  # up to date: still warned
    again = capsys.readouterr().out
    assert "up to date" in again and all(f"warning: {c} {s} has {n} item" in again
                                         for c, splits in counts.items() for s, n in splits.items() if n < 30)
