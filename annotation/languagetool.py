"""Grammar check of paraphrases in context, through `language-tool-python` and a LanguageTool HTTP server."""
import os
import re
import urllib.parse

import language_tool_python
from language_tool_python.exceptions import LanguageToolError
import requests

from picforge.errors import InputError
from picforge.options import http_url
from picforge.redact import redact_text, redact_url

URL_ENV = "LANGUAGETOOL_URL"
_WORD_BEFORE = re.compile(r"\S+\s*$")
_WORD_AFTER = re.compile(r"\s*\S+")


def neighbourhood(text, span):
    """The span widened by one word on each side, where errors caused by a replacement show
    (a wrong article before it, agreement after it)."""
    start, end = span
    before = _WORD_BEFORE.search(text[:start])
    after = _WORD_AFTER.match(text, end)
    return (before.start() if before else start), (after.end() if after else end)


class GrammarChecker:
    """Checks text against the LanguageTool server at `url` (never starts a local Java server)."""

    def __init__(self, url, language="en-US"):
        self.url = url
        self.language = language
        self._tool = None

    def _client(self):
        if self._tool is None:
            try:
                self._tool = language_tool_python.LanguageTool(self.language, remote_server=self.url)
            except (LanguageToolError, requests.RequestException, OSError) as err:
                raise InputError(f"LanguageTool server {redact_url(self.url)}: not reachable "
                                 f"({redact_text(str(err))}); start it with docker/languagetool/docker-compose.yml "
                                 "or pass --no-grammar") from None
        return self._tool

    def issues_in_span(self, text, span):
        """LanguageTool matches of `text` touching `span` (the replaced paraphrase) or its neighbouring
        words, as dicts."""
        start, end = neighbourhood(text, span)
        client = self._client()
        try:
            matches = client.check(text)
        except (LanguageToolError, requests.RequestException, KeyError, TypeError, ValueError) as err:
            raise InputError(f"LanguageTool server {redact_url(self.url)}: check failed "
                             f"({redact_text(self._answer_to(client, text) or str(err))}); is it a LanguageTool /v2 "
                             "server, and running? (or pass --no-grammar)") from None
        return [
            {"rule": m.rule_id, "message": m.message, "replacements": list(m.replacements[:3]),
             "offset": m.offset, "length": m.error_length, "text": text[m.offset:m.offset + m.error_length]}
            for m in matches
            if m.offset < end and m.offset + m.error_length > start
        ]

    def _answer_to(self, client, text):
        """What the server answers one check of `text` (HTTP status and the start of its body), to name a failure
        the client library reports only as a missing key; '' when nothing answers."""
        try:
            response = requests.post(urllib.parse.urljoin(client._url, "check"), timeout=30,
                                     data={"language": self.language, "text": text})
        except requests.RequestException:
            return ""
        body = " ".join(response.text.split())[:200]
        return f"HTTP {response.status_code} {response.reason}" + (f": {body}" if body else "")

    def close(self):
        if self._tool is not None:
            self._tool.close()


def checker_from_options(url, disabled):
    """The GrammarChecker for --languagetool URL (or $LANGUAGETOOL_URL); None with --no-grammar."""
    if disabled:
        return None
    url = url or os.environ.get(URL_ENV)
    if not url:
        raise InputError(f"no LanguageTool server: pass --languagetool URL (or set {URL_ENV}), "
                         "e.g. http://localhost:8010 from docker/languagetool, or --no-grammar to skip the check")
    return GrammarChecker(http_url["--languagetool"](url))
