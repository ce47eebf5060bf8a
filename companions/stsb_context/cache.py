"""On-disk cache of chat completions keyed by (model, messages, params): a re-run or a crash never pays twice.

One JSON file per entry, written atomically (temporary file + rename). Entries hold the request and the
answer only: the API key is never passed in, so it can never be stored.
"""
import hashlib
import json
import logging
import os

from picforge.files import write_atomically

log = logging.getLogger(__name__)


def cache_key(model, messages, params):
    """The sha256 of the canonical JSON of what determines a completion."""
    payload = json.dumps({"model": model, "messages": messages, "params": params},
                         sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """A directory of `<key[:2]>/<key>.json` entries."""

    def __init__(self, directory):
        self.directory = directory

    def path(self, key):
        return os.path.join(self.directory, key[:2], f"{key}.json")

    def get(self, key):
        """The cached answer for `key`, or None (an unreadable entry counts as missing and is logged)."""
        path = self.path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)["response"]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.warning("ignoring unreadable cache entry %s (%s); it will be requested again", path, err)
            return None

    def put(self, key, request, response):
        """Store one answer atomically: readers see the old entry or the whole new one, never a partial file."""
        entry = {"key": key, "request": request, "response": response}
        write_atomically(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1, sort_keys=True))
