"""Download an https:// dump once into a local cache, resuming a partial download with HTTP Range."""
import hashlib
import logging
import os

from urllib.parse import urlsplit

import requests
import urllib3

from picforge.errors import InputError
from picforge.files import writing_to

CHUNK_BYTES = 1 << 20
log = logging.getLogger(__name__)


def default_cache_dir():
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "picforge", "downloads")


def cached_path(url, cache_dir):
    """Where `url` is kept in the cache: a hash of the URL plus the file name of its path (never its query string
    or credentials, which may hold a token)."""
    name = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1] or "download"
    return os.path.join(cache_dir, hashlib.sha1(url.encode("utf-8")).hexdigest()[:12] + "-" + name)


def fetch(url, cache_dir=None, session=None, timeout=60, attempts=5):
    """The local path of `url`, downloading it (or the rest of a partial download) if needed; a dropped
    connection is resumed from where it stopped, up to `attempts` times."""
    cache_dir = cache_dir or default_cache_dir()
    os.makedirs(cache_dir, exist_ok=True)
    final = cached_path(url, cache_dir)
    if os.path.exists(final):
        return final
    session = session or requests.Session()
    for attempt in range(1, attempts + 1):
        try:
            _download(url, final + ".part", session, timeout)
            break
        except requests.RequestException as err:
            if attempt == attempts:
                raise InputError(f"{url}: download interrupted {attempts} times ({err}); re-run the same command "
                                 "to resume") from err
            log.warning("%s: download interrupted (%s); resuming (attempt %d of %d)", url, err, attempt + 1, attempts)
    os.replace(final + ".part", final)
    return final


def _download(url, partial, session, timeout):
    """Append the rest of `url` to `partial` (a Range request when part of it is there already)."""
    have = os.path.getsize(partial) if os.path.exists(partial) else 0
    headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={have}-"} if have else {})}
    with session.get(url, headers=headers, stream=True, timeout=timeout) as response:
        if response.status_code == 416:  # the partial file is already complete
            return
        if response.status_code not in (200, 206):
            raise InputError(f"{url}: download failed with HTTP {response.status_code}; check the URL")
        mode = "ab" if response.status_code == 206 else "wb"
        if mode == "wb" and have:
            log.info("%s: server ignored the Range request; downloading from the start", url)
        with writing_to(partial), open(partial, mode) as out:
            try:
                while block := response.raw.read1(CHUNK_BYTES):  # what arrived, so a drop loses nothing
                    out.write(block)
            except urllib3.exceptions.HTTPError as err:
                raise requests.ConnectionError(err) from err
