"""PEARL fixtures: spaCy's parser with NER, Debian's WordNet, and a real mining run of the 103-page sample."""
import os

import pytest

from companions.pearl.synonyms import DEBIAN_WORDNET

SAMPLE_103 = "wiki/enwiki-sample-103pages.xml.bz2"


@pytest.fixture(scope="session")
def nlp():
    """The default spaCy pipeline PEARL parses with (tagger, parser, NER)."""
    from companions.pearl.corpus import load_parser

    return load_parser()


@pytest.fixture(scope="session")
def wordnet_root():
    """Debian's WordNet 3.0 database folder (package wordnet-base)."""
    if not os.path.exists(os.path.join(DEBIAN_WORDNET, "data.noun")):
        pytest.skip(f"needs Debian's WordNet database in {DEBIAN_WORDNET} (apt-get install wordnet-base, or "
                    "`make system-deps`)")
    return DEBIAN_WORDNET


@pytest.fixture(scope="session")
def mined_103(tmp_path_factory, wic_zip):
    """A real mining run of the shared 103-page enwiki sample (its `sentences` stage is PEARL's input)."""
    from tests.conftest import _shared
    from pipeline.mine import mine

    dump = _shared(SAMPLE_103)
    out = tmp_path_factory.mktemp("mined103")
    mine(str(dump), str(wic_zip), str(out))
    return out
