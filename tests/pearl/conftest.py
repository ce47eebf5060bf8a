"""PEARL fixtures: spaCy's parser with NER and Debian's WordNet (the mined 103-page run is in tests/conftest.py)."""
import os

import pytest

from companions.pearl.synonyms import DEBIAN_WORDNET

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
