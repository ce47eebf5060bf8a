"""Mining: Wikipedia pages-articles dump → annotation triplets, as Beam stages."""
from picforge.stage_registry import register_stages

# The stages `picforge mine` writes, in mining order.
MINING_STAGES = ("read-dump", "clean", "sentences", "phrases", "group", "pairs", "domains", "select")
register_stages(dict.fromkeys(MINING_STAGES, "picforge mine --input DUMP --wic WIC_ZIP --out {run}"))
