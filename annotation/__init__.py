"""Annotation: expert sheets, MTurk and verification rounds recorded in one ledger, and the final export."""
from picforge.stage_registry import register_stages

register_stages({"final_annotations": "picforge annotate export final --run {run}"})
