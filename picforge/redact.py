"""Credentials never shown: a URL's password is replaced by *** wherever picforge prints, logs or stores it."""
import logging
import os
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


SECRET_VARIABLE = re.compile(r"(API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|ACCESS_KEY)$", re.IGNORECASE)
MIN_SECRET_CHARS = 8  # shorter values (flags such as "1") would blank ordinary words


def environment_secrets():
    """The values of environment variables whose names say they hold a secret (API keys, tokens, passwords)."""
    return tuple(value for name, value in os.environ.items()
                 if SECRET_VARIABLE.search(name) and len(value) >= MIN_SECRET_CHARS)


def configure_logging(verbosity):
    """Log at WARNING, INFO (-v) or DEBUG (-vv), every record of every logger (httpx, openai, urllib3, botocore,
    SQLAlchemy, Beam…) redacted as it is made, so no handler ever sees a URL password or a secret's value."""
    logging.basicConfig(level=(logging.WARNING, logging.INFO, logging.DEBUG)[min(verbosity, 2)],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if verbosity:
        logging.getLogger().setLevel(logging.INFO if verbosity == 1 else logging.DEBUG)
    factory = logging.getLogRecordFactory()
    if not getattr(factory, "redacts", False):
        logging.setLogRecordFactory(_redacting(factory))


def _redacting(factory):
    """A log record factory that makes each record through `factory`, then replaces its message by the redacted one."""
    def make(*args, **kwargs):
        record = factory(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a library's bad format string: let logging report it as it would
            return record
        clean = redact_text(message, *environment_secrets())
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact_text(text, *environment_secrets())
        return record

    make.redacts = True
    return make
