"""A release's croissant.json (Croissant 1.1 with its Responsible-AI fields and PROV lineage), built from what the
release declares: its description, inputs, the RAI facts of its run, and per config its features and split files."""
import os
import re
from dataclasses import dataclass
from typing import NamedTuple

CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
# The Croissant 1.1 JSON-LD context (https://docs.mlcommons.org/croissant/docs/croissant-spec-1.1.html), with PROV.
CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "arrayShape": "cr:arrayShape", "citeAs": "cr:citeAs",
    "column": "cr:column", "conformsTo": "dct:conformsTo", "containedIn": "cr:containedIn",
    "cr": "http://mlcommons.org/croissant/", "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
    "description": {"@container": "@language"}, "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileObject": "cr:fileObject", "fileProperty": "cr:fileProperty", "fileSet": "cr:fileSet", "format": "cr:format",
    "includes": "cr:includes", "isArray": "cr:isArray", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath",
    "key": "cr:key", "md5": "cr:md5", "name": {"@container": "@language"}, "parentField": "cr:parentField",
    "path": "cr:path", "prov": "http://www.w3.org/ns/prov#", "rai": "http://mlcommons.org/croissant/RAI/",
    "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated",
    "replace": "cr:replace", "samplingRate": "cr:samplingRate", "sc": "https://schema.org/",
    "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}
ENCODING = {".parquet": "application/x-parquet", ".jsonl": "application/jsonlines",
            ".json": "application/jsonlines"}
DUMP_DATE = re.compile(r"(?:^|-)(\d{8})(?:-|$)")
DATA_TYPES = {"string": "sc:Text", "bool": "sc:Boolean", "float32": "sc:Float", "float64": "sc:Float"}
# The RAI properties a release fills (Croissant RAI 1.0 names); a release that leaves one out is refused.
RAI_FIELDS = ("dataCollection", "dataCollectionType", "dataAnnotationProtocol", "dataAnnotationPlatform",
              "annotationsPerItem", "dataAnnotationAnalysis", "annotatorDemographics", "machineAnnotationTools",
              "dataLimitations", "dataBiases", "dataUseCases", "personalSensitiveInformation")


class Input(NamedTuple):
    """One input of a release: its licence (Hugging Face id), what that licence requires (the card's words), for
    the lineage its name, address and, where a run knows it, the exact files and dates used, and whether the
    release redistributes it (only then do its terms bind the release's licence)."""

    license_id: str
    terms: str
    name: str = ""
    url: str = ""
    used: str = ""
    redistributed: bool = True


@dataclass(frozen=True)
class Description:
    """What a release says about itself in croissant.json: text, citation, inputs, RAI facts and how it was made.

    `rai` maps each of RAI_FIELDS to a string or list of strings read off the run; `generated_by` holds the run's
    fingerprint and runner (picforge's version is added by the writer); `configs` is {config: (datasets.Features,
    {split: (path, num_examples, num_bytes)})} as for the card header."""

    name: str
    description: str
    cite_as: str
    inputs: tuple
    rai: dict
    generated_by: dict
    license_id: str
    configs: dict
    url: str = ""
    creators: tuple = ({"@type": "sc:Organization", "name": "picforge",
                        "description": "the dataset-construction tool that built this release"},)


def dump_names(manifest):
    """(file names, dates in them) of the dump files a manifest lists among its inputs (`dump`)."""
    names = [os.path.basename(entry["path"]) for entry in manifest.get("inputs", {}).get("dump", [])]
    dates = sorted({m.group(1) for name in names for m in [DUMP_DATE.search(name)] if m})
    return names, dates


def dump_inputs(run):
    """{"dump": [file identities]} of the Wikipedia dump a mined run read (the first of its read-dump and clean
    manifests to list one), or {}: what a stage built from another run's stages adds to its inputs, so the release
    it feeds can name the dump."""
    for stage in ("read-dump", "clean"):
        dump = (run.read_manifest(stage) or {}).get("inputs", {}).get("dump")
        if dump:
            return {"dump": dump}
    return {}


def dump_used(manifest):
    """What the lineage says of the Wikipedia dump a manifest lists: its files and the dates in their names."""
    names, dates = dump_names(manifest)
    if not names:
        return "dump files not recorded in the run"
    return f"dump files {', '.join(names)}; dump dates {', '.join(dates) or 'not in the file names'}"


def data_type(feature):
    """(Croissant dataType, is an array) of a Hugging Face feature holding a scalar or a list of scalars."""
    from datasets import ClassLabel, List, Sequence, Value

    if isinstance(feature, (List, Sequence)):
        return data_type(feature.feature)[0], True
    if isinstance(feature, ClassLabel) or (isinstance(feature, Value) and "int" in feature.dtype):
        return "sc:Integer", False
    if isinstance(feature, Value) and feature.dtype in DATA_TYPES:
        return DATA_TYPES[feature.dtype], False
    raise ValueError(f"no Croissant dataType for the feature {feature!r}")


def field_node(record_set, name, feature, file_set, parent=None):
    """The cr:Field of one column (sub-fields for a struct, or for a list of structs), typed from its feature."""
    from datasets import List, Sequence

    path = f"{parent}/{name}" if parent else name
    node = {"@type": "cr:Field", "@id": f"{record_set}/{path}", "name": name}
    inner = feature.feature if isinstance(feature, (List, Sequence)) else feature
    if isinstance(inner, dict):
        node["subField"] = [field_node(record_set, sub, inner[sub], file_set, path) for sub in inner]
        if inner is not feature:
            node["isArray"] = True
    else:
        node["dataType"], is_array = data_type(feature)
        if is_array:
            node["isArray"] = True
    node["source"] = {"fileSet": {"@id": file_set}, "extract": {"column": path.split("/")[0]}}
    if parent:
        node["source"]["transform"] = {"jsonPath": name}
    return node


def readable_file(folder, path):
    """The file a config's split is read from: its Parquet sibling when the release has one, else `path`."""
    parquet = os.path.splitext(path)[0] + ".parquet"
    return parquet if os.path.exists(os.path.join(folder, parquet)) else path


def record_set(config, features, split_files):
    """(FileSet, RecordSet) of one config: every split file of it, and its typed fields plus `split`."""
    ext = os.path.splitext(split_files[0])[1]
    file_set = {"@type": "cr:FileSet", "@id": f"{config}-files", "name": f"{config}-files",
                "encodingFormat": ENCODING[ext], "includes": list(split_files)}
    splits = "|".join(os.path.splitext(os.path.basename(p))[0] for p in split_files)
    fields = [field_node(config, name, feature, file_set["@id"]) for name, feature in features.items()]
    fields.append({"@type": "cr:Field", "@id": f"{config}/split", "name": "split", "dataType": "sc:Text",
                   "description": "the split the record belongs to (its file's name)",
                   "source": {"fileSet": {"@id": file_set["@id"]}, "extract": {"fileProperty": "filename"},
                              "transform": {"regex": f"^({splits})\\{ext}$"}}})
    return file_set, {"@type": "cr:RecordSet", "@id": config, "name": config, "field": fields}


def file_object(relative, checksum):
    """The cr:FileObject of one released data file, with its sha256 (from the release's checksums)."""
    return {"@type": "cr:FileObject", "@id": relative, "name": relative, "contentUrl": relative,
            "encodingFormat": ENCODING[os.path.splitext(relative)[1]], "contentSize": f"{checksum['bytes']} B",
            "sha256": checksum["sha256"]}


def lineage(description, version):
    """PROV lineage: each input the release was derived from, and the picforge run that generated it."""
    derived = [{"@type": "prov:Entity", "name": i.name, "url": i.url, "license": license_url(i.license_id),
                "description": "; ".join(filter(None, (i.used, "redistributed in this release" if i.redistributed
                                                       else "read only, not redistributed")))}
               for i in description.inputs if i.name]
    generated = {"@type": "prov:Activity", "name": f"picforge {version}",
                 "prov:wasAssociatedWith": {"@type": "prov:SoftwareAgent", "name": "picforge", "version": version},
                 **{f"prov:{key}" if key in ("startedAtTime", "endedAtTime") else key: value
                    for key, value in description.generated_by.items()}}
    return {"prov:wasDerivedFrom": derived, "prov:wasGeneratedBy": generated}


def license_url(license_id):
    """The licence's address where it is a Creative Commons id, else the id."""
    match = re.fullmatch(r"cc-(by(?:-nc)?(?:-sa|-nd)?)-(\d\.\d)", license_id)
    return f"https://creativecommons.org/licenses/{match.group(1)}/{match.group(2)}/" if match else license_id


def data_files(paths):
    """The data files among a release's `paths` (in a config's folder, with a data format): what croissant.json lists
    as FileObjects with their sha256."""
    return [path for path in paths if os.path.splitext(path)[1] in ENCODING and "/" in path]


def croissant(folder, description, checksums, *, version):
    """The croissant.json of a release folder, from its `description` and the {relative path: {sha256, bytes}}
    `checksums` of the files written so far. Refuses (ValueError) a description that leaves a RAI field out, so
    every release states each one."""
    missing = [name for name in RAI_FIELDS if not description.rai.get(name)]
    if missing:
        raise ValueError(f"{description.name}: the release declares no {', '.join(missing)} for croissant.json")
    file_sets, record_sets = [], []
    for config, (features, splits) in description.configs.items():
        files = [readable_file(folder, path) for path, _, _ in splits.values()]
        file_set, records = record_set(config, features, files)
        file_sets.append(file_set)
        record_sets.append(records)
    data = data_files(checksums)
    return {
        "@context": CONTEXT, "@type": "sc:Dataset", "conformsTo": CONFORMS_TO,
        "name": description.name, "description": description.description, "license": license_url(description.license_id),
        **({"url": description.url} if description.url else {}), "version": version, "citeAs": description.cite_as,
        "creator": list(description.creators), "inLanguage": "en",
        **{f"rai:{key}": description.rai[key] for key in RAI_FIELDS},
        **lineage(description, version),
        "distribution": [file_object(path, checksums[path]) for path in data] + file_sets,
        "recordSet": record_sets,
    }
