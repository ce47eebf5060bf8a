"""Credentials never shown: a URL's user-info (a password, with `@` in it or not, or a token alone), its secret
query parameters, and the secrets the command line and environment name become *** wherever picforge prints, logs
or stores them."""
import logging
import os
import re
import sys
import traceback
from urllib.parse import unquote

# scheme://USERINFO@ : the user-info runs to the last `@` before the host's `/`, `?` or `#`, so a password holding
# an `@` (`alice:PG@secret@host`) is blanked whole
URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/?#\s'\"<>]*)@")
SECRET_PARAMETER = re.compile(
    r"(?P<name>[?&](?:[\w.-]*(?:api[_-]?key|apikey|token|secret|password|passwd|pwd|signature|credential)[\w.-]*|"
    r"key|sig|code|auth|x-amz-[\w-]+|x-goog-[\w-]+)=)(?P<value>[^&#\s'\"<>]+)", re.IGNORECASE)

MIN_SECRET_CHARS = 8  # shorter values (flags such as "1") would blank ordinary words
MIN_REMEMBERED_CHARS = 4  # a URL password shorter than this is blanked inside URLs only, not wherever it appears


def _userinfo(match):
    user, colon, _ = match["userinfo"].partition(":")
    return f"{match['scheme']}{user}:***@" if colon else f"{match['scheme']}***@"


def redact_url(url):
    """`url` with its user-info's credential and secret query parameters replaced by ***."""
    return redact_text(url)


def redact_text(text, *secrets):
    """`text` with every URL credential and secret query parameter, each of `secrets` (API keys, passwords) and
    each secret the command line named (`remember_secrets`) replaced by ***."""
    text = URL_USERINFO.sub(_userinfo, text)
    text = SECRET_PARAMETER.sub(lambda m: f"{m['name']}***", text)
    for secret in sorted({s for s in (*secrets, *_remembered) if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def redact_stored(value):
    """`value` (a manifest, cache entry or option: dicts, lists, strings) with redact_text applied to every string."""
    if isinstance(value, str):
        return redact_text(value, *environment_secrets())
    if isinstance(value, dict):
        return {key: redact_stored(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_stored(item) for item in value)
    return value


_remembered = set()  # secrets found in this process's command line and environment URLs


def url_secrets(text):
    """The secrets inside the URLs of `text`: passwords, user names long enough to be tokens, secret query values,
    and each `@`-separated piece of a password (a library splitting at the first `@` prints the rest as a host)."""
    found = {m["value"] for m in SECRET_PARAMETER.finditer(text)}
    for match in URL_USERINFO.finditer(text):
        user, colon, password = match["userinfo"].partition(":")
        if colon:
            found |= {password, unquote(password), *(p for p in password.split("@") if len(p) >= MIN_SECRET_CHARS)}
        elif len(user) >= MIN_SECRET_CHARS:  # a token as the user name; a short one is a name such as "alice"
            found |= {user, unquote(user)}
    return {secret for secret in found if len(secret) >= MIN_REMEMBERED_CHARS and secret != "***"}


def remember_secrets(*texts):
    """Blank the URL secrets of `texts` (the command line) in everything redact_text sees from now on; the URLs of
    the environment (a ledger, an endpoint) are remembered too."""
    urls = [value for value in os.environ.values() if "://" in value]
    for text in (*texts, *urls):
        _remembered.update(url_secrets(str(text)))


SECRET_VARIABLE = re.compile(r"(API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|ACCESS_KEY)$", re.IGNORECASE)


def environment_secrets():
    """The values of environment variables whose names say they hold a secret (API keys, tokens, passwords)."""
    return tuple(value for name, value in os.environ.items()
                 if SECRET_VARIABLE.search(name) and len(value) >= MIN_SECRET_CHARS)


def configure_logging(verbosity):
    """Log at WARNING, INFO (-v) or DEBUG (-vv), every record of every logger (httpx, openai, urllib3, botocore,
    SQLAlchemy, Beam…) redacted as it is made, so no handler ever sees a URL password or a secret's value; the
    traceback of an error no one caught (shown with -v) is redacted too."""
    sys.excepthook = _print_redacted
    logging.basicConfig(level=(logging.WARNING, logging.INFO, logging.DEBUG)[min(verbosity, 2)],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if verbosity:
        logging.getLogger().setLevel(logging.INFO if verbosity == 1 else logging.DEBUG)
    factory = logging.getLogRecordFactory()
    if not getattr(factory, "redacts", False):
        logging.setLogRecordFactory(_redacting(factory))


def _print_redacted(kind, error, trace):
    """sys.excepthook: the usual traceback, with redact_text applied."""
    text = "".join(traceback.format_exception(kind, error, trace))
    sys.stderr.write(redact_text(text, *environment_secrets()))


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
