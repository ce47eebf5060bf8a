"""Download an https:// dump once into a local cache, resuming a partial download with HTTP Range."""
import hashlib
import logging
import os

import requests

from pipeline.errors import InputError

CHUNK_BYTES = 1 << 20
log = logging.getLogger(__name__)


def default_cache_dir():
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "picforge", "downloads")


def cached_path(url, cache_dir):
    """Where `url` is kept in the cache: a hash of the URL plus its file name."""
    name = url.rstrip("/").rsplit("/", 1)[-1] or "download"
    return os.path.join(cache_dir, hashlib.sha1(url.encode("utf-8")).hexdigest()[:12] + "-" + name)


def fetch(url, cache_dir=None, session=None, timeout=60):
    """The local path of `url`, downloading it (or the rest of a partial download) if needed."""
    cache_dir = cache_dir or default_cache_dir()
    os.makedirs(cache_dir, exist_ok=True)
    final = cached_path(url, cache_dir)
    if os.path.exists(final):
        return final
    partial = final + ".part"
    have = os.path.getsize(partial) if os.path.exists(partial) else 0
    session = session or requests.Session()
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        with session.get(url, headers=headers, stream=True, timeout=timeout) as response:
            if response.status_code == 416:  # the partial file is already complete
                os.replace(partial, final)
                return final
            if response.status_code not in (200, 206):
                raise InputError(f"{url}: download failed with HTTP {response.status_code}; check the URL")
            mode = "ab" if response.status_code == 206 else "wb"
            if mode == "wb" and have:
                log.info("%s: server ignored the Range request; downloading from the start", url)
            with open(partial, mode) as out:
                for block in response.iter_content(CHUNK_BYTES):
                    out.write(block)
    except requests.RequestException as err:
        raise InputError(f"{url}: download interrupted ({err}); re-run the same command to resume") from err
    os.replace(partial, final)
    return final
