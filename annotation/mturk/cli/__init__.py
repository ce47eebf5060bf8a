"""`picforge annotate mturk …`: MTurk round 1's verbs, one module each beside the library they drive
(annotation.mturk); `options` holds what they share. The annotate area loads them with its other verbs."""


def load():
    """Import the verb modules, each registering its verb under `annotate mturk`."""
    from annotation.mturk.cli import (create, create_questions, delete, expire, export, gold,  # noqa: F401
                                      ingest, rehearse, review, save, status)
