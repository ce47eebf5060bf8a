"""The plug-in companion's release step: the word counts as one JSON Lines split, with card, croissant.json and
MANIFEST.json, through the core release writer."""
import os

from picforge import release_writer, rundir
from tests.plugin_companion import STAGE

NAME = "Word counts (picforge plug-in example)"
DATA_FILE = "data/test.jsonl"
TEXT = release_writer.Input("other", "the counted text keeps its authors' terms", "the text file given to "
                                     "`picforge wordcount count --text`")
INPUT_TERMS = (TEXT,)
INTRO = "How often each word occurs in one text file, lower-cased, most frequent first."
# Every RAI field croissant.json states, in this release's words.
RAI = {
    "dataCollection": "the words of one UTF-8 text file",
    "dataCollectionType": ["Software Collection"],
    "dataAnnotationProtocol": ["no annotation: words and counts are computed"],
    "dataAnnotationPlatform": ["none"],
    "annotationsPerItem": "none",
    "dataAnnotationAnalysis": ["none"],
    "annotatorDemographics": ["not applicable: no annotator"],
    "machineAnnotationTools": ["a regular expression splitting words"],
    "dataLimitations": ["one text only"],
    "dataBiases": ["those of the text"],
    "dataUseCases": ["showing how a companion plugs into picforge"],
    "personalSensitiveInformation": ["whatever words the text holds"],
}


def features():
    """The Hugging Face features of a row."""
    import datasets

    return datasets.Features({"word": datasets.Value("string"), "count": datasets.Value("int32")})


def write_release(run, out, *, license_id=None, license_override=None, force=False):
    """Write the release of the run's word counts into `out` (replaced whole) unless it is up to date; returns its
    MANIFEST. A `license_id` that conflicts with the text's terms is refused unless `license_override` says why."""
    license_id = release_writer.check_license(license_id, INPUT_TERMS, license_override)
    made = rundir.RunDir(run).require(STAGE)
    wanted = rundir.fingerprint("wordcount-release", {STAGE: made["fingerprint"]},
                                release_writer.license_fields(license_id, license_override))
    existing = release_writer.current_release(out, wanted, force=force, kind="wordcount", run=run)
    if existing:
        return dict(existing, skipped=True)
    rows = list(rundir.RunDir(run).iter_records(STAGE))
    return release_writer.write_release(
        out, lambda folder: contents(folder, rows, made, wanted, license_id, license_override))


def contents(folder, rows, made, wanted, license_id, license_override):
    """The data file of a release, and its card, statistics, manifest fields and croissant description."""
    size = release_writer.write_jsonl(os.path.join(folder, DATA_FILE), rows)
    configs = {"default": (features(), {"test": (DATA_FILE, len(rows), size)})}
    header = release_writer.card_header(license_id=license_id, pretty_name=NAME, task_categories=["other"],
                                        configs=configs)
    card = release_writer.render_card(header, NAME, [INTRO], [
        ("License", release_writer.license_section(license_id, INPUT_TERMS, license_override))])
    stats = {"words": len(rows), "occurrences": sum(row["count"] for row in rows)}
    fields = {"fingerprint": wanted, **release_writer.license_fields(license_id, license_override),
              "inputs": {STAGE: made["fingerprint"]},
              "counts": {"test": len(rows)}}
    description = release_writer.Description(
        name=NAME, description=INTRO, cite_as="picforge's plug-in example", inputs=INPUT_TERMS, rai=RAI,
        generated_by={"identifier": wanted, "runner": "none: written outside Beam"}, license_id=license_id,
        configs=configs)
    return card, stats, fields, description
