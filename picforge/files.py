"""The one atomic file write: a staging sibling renamed into place, on local disk or Beam FileSystems."""
import os
import threading

# Names of files being written; a stage folder may hold them (see RunDir.clear).
STAGING_PREFIX = "_staging-"


def write_atomically(path, data):
    """Write bytes (or UTF-8 text) as `path` so that readers see the old file or the whole new one, never a part.

    Local paths are written to a temporary sibling, fsynced and renamed over `path`; gs://, s3:// and other
    Beam FileSystems paths to a staging sibling, then renamed.
    """
    data = data.encode("utf-8") if isinstance(data, str) else data
    if "://" in path:
        from apache_beam.io.filesystems import FileSystems

        folder, name = path.rsplit("/", 1)
        staging = f"{folder}/{STAGING_PREFIX}{name}"
        with FileSystems.create(staging, compression_type="uncompressed") as fh:
            fh.write(data)
        if FileSystems.exists(path):
            FileSystems.delete([path])
        FileSystems.rename([staging], [path])
        return
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    staging = os.path.join(folder, f"{STAGING_PREFIX}{os.getpid()}.{threading.get_ident()}-{os.path.basename(path)}")
    try:
        with open(staging, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(staging, path)
    except BaseException:
        if os.path.exists(staging):
            os.unlink(staging)
        raise
