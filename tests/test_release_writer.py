"""The core release writer: licence defaults, the card layout, the manifest and atomic replacement."""
import json

import pytest

from picforge import release_writer
from picforge.croissant import RAI_FIELDS
from picforge.release_writer import WIKIPEDIA, default_license, read_manifest, render_card, sha256_file

NON_COMMERCIAL = ("cc-by-nc-4.0", "the labels are non-commercial")
OWN_TERMS = ("other", "the pairs keep their authors' terms")


def test_default_license_is_the_most_restrictive_and_names_every_input():
    assert default_license([WIKIPEDIA]) == ("cc-by-sa-4.0", WIKIPEDIA[1][0].upper() + WIKIPEDIA[1][1:] + ".")
    license_id, reasons = default_license([WIKIPEDIA, NON_COMMERCIAL])
    assert license_id == "cc-by-nc-4.0" and "CC BY-SA 4.0" in reasons and reasons.endswith("non-commercial.")
    assert default_license([NON_COMMERCIAL, OWN_TERMS, WIKIPEDIA])[0] == "other"


def test_license_section_says_whether_the_licence_is_the_default():
    assert release_writer.license_section("cc-by-sa-4.0", [WIKIPEDIA]).startswith(
        "`cc-by-sa-4.0`, the default for these inputs. The text is from English Wikipedia, offered under CC BY-SA 4.0")
    assert release_writer.license_section("mit", [WIKIPEDIA, NON_COMMERCIAL]).startswith(
        "`mit`, chosen with --license (the default for these inputs is `cc-by-nc-4.0`, the most restrictive of "
        "their terms).")


def test_schema_features_follow_the_json_schema_of_every_release():
    import datasets

    features = release_writer.schema_features("mcphrasy_clustering")  # a companion's schema, found by schemas.load
    assert list(features) == ["group_id", "category", "seed", "phrases", "clusters"]
    assert features["clusters"] == datasets.List({"phrases": datasets.List(datasets.Value("string")),
                                                  "kind": datasets.Value("string")})
    assert release_writer.schema_feature({"type": "number"}).dtype == "float64"
    assert release_writer.schema_feature({"type": "integer", "x-class-names": ["no", "yes"]}).names == ["no", "yes"]
    with pytest.raises(ValueError, match="no release feature for JSON type 'boolean'"):
        release_writer.schema_feature({"type": "boolean"})


def test_card_is_header_title_intro_then_sections():
    card = render_card("license: mit\n", "Title", ["First.", "Second.\n"], [("A", "body a"), ("B", "body b\n")])
    assert card == "---\nlicense: mit\n---\n\n# Title\n\nFirst.\n\nSecond.\n\n## A\n\nbody a\n\n## B\n\nbody b\n"


def description(rai=None):
    """A Description of a one-split release of a single text field, with every RAI field stated."""
    import datasets

    return release_writer.Description(
        name="tiny", description="One row.", cite_as="A paper.", inputs=(WIKIPEDIA,),
        rai=rai if rai is not None else {name: "stated" for name in RAI_FIELDS},
        generated_by={"identifier": "f" * 64, "runner": "DirectRunner"}, license_id="cc-by-sa-4.0",
        configs={"default": (datasets.Features({"a": datasets.Value("string")}), {"test": ("data/test.jsonl", 1, 9)})})


def test_write_release_checksums_every_file_and_a_failure_keeps_the_old_release(tmp_path):
    out = tmp_path / "release"

    def fill(folder):
        release_writer.write_jsonl(f"{folder}/data/test.jsonl", [{"a": "é"}])
        return "card\n", {"rows": 1}, {"counts": {"test": 1}}, description()

    manifest = release_writer.write_release(str(out), fill)
    assert read_manifest(str(out)) == manifest and manifest["counts"] == {"test": 1}
    assert sorted(manifest["files"]) == ["README.md", "croissant.json", "data/test.jsonl", "stats.json"]
    metadata = json.loads((out / "croissant.json").read_text())
    assert [node["sha256"] for node in metadata["distribution"] if node["@type"] == "cr:FileObject"] == [
        manifest["files"]["data/test.jsonl"]["sha256"]]
    assert metadata["license"] == "https://creativecommons.org/licenses/by-sa/4.0/"
    assert metadata["prov:wasGeneratedBy"]["identifier"] == "f" * 64
    for name, entry in manifest["files"].items():
        assert sha256_file(str(out / name)) == entry["sha256"]
    assert (out / "data" / "test.jsonl").read_text(encoding="utf-8") == '{"a": "é"}\n'
    assert json.loads((out / "stats.json").read_text()) == {"rows": 1}

    def broken(folder):
        release_writer.write_jsonl(f"{folder}/data/test.jsonl", [{"a": "new"}])
        raise RuntimeError("stopped half-way")

    with pytest.raises(RuntimeError):
        release_writer.write_release(str(out), broken)
    assert read_manifest(str(out)) == manifest and sorted(p.name for p in tmp_path.iterdir()) == ["release"]


def test_a_release_that_leaves_a_rai_field_unstated_is_refused(tmp_path):
    def fill(folder):
        release_writer.write_jsonl(f"{folder}/data/test.jsonl", [{"a": "b"}])
        return "card\n", {}, {}, description(rai={"dataCollection": "mined"})

    with pytest.raises(ValueError, match="declares no dataCollectionType, dataAnnotationProtocol"):
        release_writer.write_release(str(tmp_path / "release"), fill)
    assert not (tmp_path / "release").exists()
