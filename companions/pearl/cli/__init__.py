"""`picforge pearl build|paraphrase|release`: the PEARL phrase corpus (one module per verb, the work in companions.pearl)."""
from companions.pearl.cli import build, paraphrase, release


def register(subparsers):
    """Add `pearl` and its verbs to the `picforge` command."""
    parser = subparsers.add_parser(
        "pearl", description="Typed phrases, augmentations and hard negatives from a mining run's sentences; an optional "
                    "LLM paraphrase per phrase; a Hugging Face release. See docs/pearl.md.")
    verbs = parser.add_subparsers(dest="pearl_verb", metavar="VERB", required=True)
    for verb in (build, paraphrase, release):
        verb.register(verbs)
