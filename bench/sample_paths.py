"""Where the benches find the repository (put on sys.path, so they import picforge) and the shared real inputs: the
103-page enwiki sample and WiC (`PICFORGE_SHARED_DATA`, default ../shared/data)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SHARED_DATA = os.environ.get("PICFORGE_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))
DEFAULT_INPUT = os.path.join(SHARED_DATA, "wiki", "enwiki-sample-103pages.xml.bz2")
DEFAULT_WIC = os.path.join(SHARED_DATA, "wic", "WiC_dataset.zip")
