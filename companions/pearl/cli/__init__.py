"""`picforge pearl build|paraphrase|release`: the PEARL phrase corpus (one module per verb, the work in companions.pearl)."""
from picforge.cli import register_verbs

VERB_MODULES = ("build", "paraphrase", "release")


def register(subparsers):
    """Add `pearl` and its verbs to the `picforge` command."""
    register_verbs(subparsers, __name__, VERB_MODULES, "pearl", description="Typed phrases, augmentations and hard "
                   "negatives from a mining run's sentences; an optional LLM paraphrase per phrase; a Hugging Face "
                   "release. See docs/pearl.md.")
