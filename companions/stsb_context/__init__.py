"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
from companions.stsb_context.declarations import STSB_CONTEXT
from picforge.companions import Companion
from picforge.stages import produced

COMPANION = Companion(
    name="stsb-context",
    help="build and evaluate STS-B-Context (SLICE paper, Sections 4.2 and 5)",
    stages=produced(STSB_CONTEXT),
    schemas="companions.stsb_context.schemas",
    release="companions.stsb_context.release:write_release",
)
