"""Annotation: expert sheets, MTurk and verification rounds recorded in one ledger, and the final export. The one
stage it writes, `final_annotations`, is declared here (light: no SQLAlchemy), its producing command with it."""
from picforge import stages
from picforge.stages import Stage

SELECT_STAGE = "select"


@stages.register
class FinalAnnotations(Stage):
    """The kept annotations of every selected triplet; its source is the digest of the ledger's records, never the
    ledger's URL (a copied run, or a second ledger with the same records, is up to date)."""

    name, schema, upstream, sources = "final_annotations", "final_annotation", (SELECT_STAGE,), \
        ("ledger_records_sha256",)


stages.produced_by("picforge annotate export final --run {run}", (FinalAnnotations,))
