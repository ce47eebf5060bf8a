"""The PiC release of the 103-page sample carries a croissant.json that mlcroissant validates and reads back, with
the RAI fields and lineage of its run."""
import json

from picforge.rundir import RunDir
from tests.croissant_checks import check_croissant


def test_the_sample_release_carries_a_valid_croissant_with_its_lineage(release_103, annotated_103, tmp_path):
    metadata = check_croissant(release_103, tmp_path / "cache")
    derived = {entity["name"]: entity for entity in metadata["prov:wasDerivedFrom"]}
    assert "enwiki-sample-103pages.xml.bz2" in derived["English Wikipedia"]["description"]
    assert derived["WiC: the Word-in-Context dataset"]["license"] == "https://creativecommons.org/licenses/by-nc/4.0/"
    assert "WiC_dataset.zip" in derived["WiC: the Word-in-Context dataset"]["description"]
    run = RunDir(str(annotated_103))
    generated = metadata["prov:wasGeneratedBy"]
    assert generated["identifier"] == json.loads((release_103 / "MANIFEST.json").read_text())["fingerprint"]
    assert generated["runner"] == run.read_manifest("select")["runner"] == "picforge.embedded_runner.EmbeddedRunner"
    assert f"{run.read_manifest('select')['records']} triplets selected" in metadata["rai:dataCollection"]
    # the fixture's final_annotations were written without a ledger, and croissant.json says so
    assert metadata["rai:dataAnnotationAnalysis"] == ["not recorded in the run (no ledger record in "
                                                      "final_annotations)"]
    assert metadata["rai:dataAnnotationPlatform"] == ["not recorded in the run (export the final annotations again)"]
    # tools as the mining manifests record them; no LanguageTool, which never ran on these annotations
    tools = metadata["rai:machineAnnotationTools"]
    parsed = run.read_manifest("phrases")["counters"]["phrases/sentences-parsed"]
    assert any(t.startswith("spaCy (") and f"parsed {parsed:,} sentences" in t for t in tools)
    assert not any("LanguageTool" in t for t in tools)
    assert any("SimCSE" in limitation for limitation in metadata["rai:dataLimitations"])
    # the sample's 2016 revisions are CC BY-SA 3.0 (read-dump records their dates); WiC's words are not released
    assert metadata["license"] == derived["English Wikipedia"]["license"] == \
        "https://creativecommons.org/licenses/by-sa/3.0/"
    card = (release_103 / "README.md").read_text()
    assert "\nlicense: cc-by-sa-3.0\n" in card and "before English Wikipedia moved to CC BY-SA 4.0" in card
    assert "each PR-pass, PR-page and PSD row names its page (`title`, `url`)" in card
    assert "Not redistributed, so not binding the licence: the WiC target words (CC BY-NC 4.0" in card
