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
    assert metadata["rai:dataAnnotationAnalysis"] == ["not recorded in the run (no ledger summary in "
                                                      "final_annotations)"]
    assert any("SimCSE" in limitation for limitation in metadata["rai:dataLimitations"])
    card = (release_103 / "README.md").read_text()
    assert "each row's `title` is the address of its page" in card and "CC BY-NC 4.0, which requires" in card
