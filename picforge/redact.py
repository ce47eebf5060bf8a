"""Credentials never shown: a URL's password is replaced by *** wherever picforge prints, logs or stores it."""
import re
from urllib.parse import urlsplit, urlunsplit

URL_PASSWORD = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^:/@\s]*):(?P<password>[^@/\s]*)@")


def redact_url(url):
    """`url` with its password (and any user-only credential) replaced by ***."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:  # a malformed URL: blank what looks like credentials
        return redact_text(url)
    if parts.password is None and not parts.username:
        return url
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username}:***@{host}" if parts.password is not None else f"***@{host}"
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def redact_text(text, *secrets):
    """`text` with every URL password and each of `secrets` (API keys, passwords) replaced by ***."""
    text = URL_PASSWORD.sub(lambda m: f"{m['scheme']}{m['user']}:***@", text)
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
