"""Mining: Wikipedia pages-articles dump → annotation triplets, as Beam stages."""
# The stages `picforge mine` writes, in mining order (importing their declarations registers them and the command
# that produces them).
from pipeline.mine_stages import MINING_STAGES

__all__ = ["MINING_STAGES"]
