"""The options of `picforge mcphrasy release` (the core's generic release verb adds them as flags from this
declaration) and the summary line it prints after the core's."""
import dataclasses

from picforge.encoders import BUNDLED_MODEL, DeviceOptions
from picforge.stages import option


@dataclasses.dataclass(frozen=True)
class ReleaseOptions(DeviceOptions):
    """The baseline encoder whose clustering scores the card reports, and where it runs."""

    encoder: str = option(BUNDLED_MODEL, "baseline sentence encoder", output=True, metavar="MODEL")


def details(manifest):
    """The release's Table 1 figure and baseline score, one line."""
    table = manifest["stats"]["table1"]["with_singletons"]
    return (f"{table['clusters_per_group']} clusters per group; baseline V at gold k: "
            f"{manifest['stats']['baseline']['gold']['v_measure']}")
