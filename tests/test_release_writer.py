"""The core release writer: licence defaults, the card layout, the manifest and atomic replacement."""
import json

import pytest

from picforge import release_writer
from picforge.croissant import RAI_FIELDS
from picforge.errors import InputError
from picforge.release_writer import WIKIPEDIA, Input, default_license, read_manifest, render_card, sha256_file

NON_COMMERCIAL = Input("cc-by-nc-4.0", "the labels are non-commercial", "Labels")
OWN_TERMS = Input("other", "the pairs keep their authors' terms", "Pairs")
WORD_FILTER = Input("cc-by-nc-4.0", "the words only filtered the candidates", "Word list", redistributed=False)
BY_SA_3 = release_writer.wikipedia("each row names its page", ["2016-05-01T02:31:12Z", "2009-01-02T00:00:00Z"])


def test_the_default_licence_is_one_every_redistributed_input_allows():
    assert BY_SA_3.license_id == "cc-by-sa-3.0" and "2 revisions saved 2009-01-02 to 2016-05-01" in BY_SA_3.terms
    assert default_license([BY_SA_3])[0] == "cc-by-sa-3.0"
    assert default_license([BY_SA_3, WORD_FILTER]) == (
        "cc-by-sa-3.0", f"It redistributes: {BY_SA_3.terms}. Not redistributed, so not binding the licence: the "
                        "words only filtered the candidates.")
    assert default_license([WIKIPEDIA])[0] == "cc-by-sa-4.0"  # no revision dates: BY-SA 4.0, which 3.0 text allows
    assert default_license([BY_SA_3, NON_COMMERCIAL])[0] == "other"  # no one licence keeps both terms
    assert default_license([NON_COMMERCIAL, OWN_TERMS])[1].endswith("so each part keeps its own (`other`).")


def test_a_conflicting_licence_is_refused_unless_an_override_says_why():
    assert release_writer.check_license(None, [BY_SA_3, WORD_FILTER]) == "cc-by-sa-3.0"
    assert release_writer.check_license("cc-by-sa-4.0", [BY_SA_3]) == "cc-by-sa-4.0"  # 3.0's later-version clause
    with pytest.raises(InputError, match=r"--license mit: conflicts with what the release redistributes: English "
                                         r"Wikipedia is redistributed under `cc-by-sa-3.0`, which allows "
                                         r"`cc-by-sa-3.0` or `cc-by-sa-4.0`; pass --license cc-by-sa-3.0"):
        release_writer.check_license("mit", [BY_SA_3, WORD_FILTER])
    with pytest.raises(InputError, match="--license-override"):
        release_writer.check_license("mit", [BY_SA_3], override="  ")
    assert release_writer.check_license("mit", [BY_SA_3], override="relicensed by the authors") == "mit"
    section = release_writer.license_section("mit", [BY_SA_3], "relicensed by the authors", "Attribution: pages.")
    assert section.startswith("`mit`, chosen with --license against the redistributed inputs' terms (English "
                              "Wikipedia is redistributed under `cc-by-sa-3.0`")
    assert 'the maintainer recorded this override: "relicensed by the authors"' in section
    assert section.endswith("\n\nAttribution: pages.")


def test_a_dump_older_than_june_2023_holds_cc_by_sa_3_text():
    assert release_writer.wikipedia_license_of_dump(["20160501"])[0] == "cc-by-sa-3.0"
    assert release_writer.wikipedia_license_of_dump(["20240101"])[0] == "cc-by-sa-4.0"
    assert release_writer.wikipedia_license_of_dump([])[0] == "cc-by-sa-4.0"


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
