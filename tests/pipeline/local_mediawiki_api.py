"""A local MediaWiki api.php on 127.0.0.1 answering prop=categories queries in formatversion=2 JSON, for tests."""
import contextlib
import json
import threading
import urllib.parse
from http.server import ThreadingHTTPServer

from pipeline.categories_api import BATCH_SIZE
from tests.http_helpers import QuietHandler

HIDDEN = ("Articles with short description", "All articles with unsourced statements")


class LocalApi(ThreadingHTTPServer):
    """api.php for prop=categories: `cllimit=max` means `max_categories` per answer, then `continue`."""

    def __init__(self, pages, max_categories=7):
        super().__init__(("127.0.0.1", 0), ApiHandler)
        self.pages = pages
        self.max_categories = max_categories
        self.requests = []  # query parameters of every request received
        self.script = []  # (status, headers, body) answered, in order, before normal answers
        self.url = f"http://127.0.0.1:{self.server_address[1]}/w/api.php"

    def answer(self, params, user_agent):
        """(status, headers, JSON body) for one request."""
        problem = self._invalid(params, user_agent)
        if problem:
            return 200, {}, {"error": {"code": "badvalue", "info": problem}, "servedby": "mw-local"}
        ids = [int(p) for p in params["pageids"].split("|")]
        visible = [(p, t) for p in ids if p in self.pages for t in sorted(self.pages[p][1]) if t not in HIDDEN]
        start = 0
        if "clcontinue" in params:
            page, title = params["clcontinue"].split("|", 1)
            start = visible.index((int(page), title.replace("_", " "))) + 1
        chunk = visible[start:start + self.max_categories]
        body = {"batchcomplete": True, "query": {"pages": []}}
        for page_id in ids:
            if page_id not in self.pages:
                body["query"]["pages"].append({"pageid": page_id, "missing": True})
                continue
            entry = {"pageid": page_id, "ns": 0, "title": self.pages[page_id][0]}
            categories = [{"ns": 14, "title": "Category:" + t} for p, t in chunk if p == page_id]
            if categories:
                entry["categories"] = categories
            body["query"]["pages"].append(entry)
        if start + self.max_categories < len(visible):
            page, title = visible[start + self.max_categories - 1]
            body.pop("batchcomplete")
            body["continue"] = {"clcontinue": f"{page}|{title.replace(' ', '_')}", "continue": "||"}
        return 200, {}, body

    @staticmethod
    def _invalid(params, user_agent):
        expected = {"action": "query", "prop": "categories", "clshow": "!hidden", "cllimit": "max",
                    "format": "json", "formatversion": "2"}
        wrong = {k: params.get(k) for k, v in expected.items() if params.get(k) != v}
        if wrong:
            return f"unexpected parameters {wrong}"
        if not params.get("maxlag", "").isdigit():
            return "maxlag missing"
        if len(params.get("pageids", "").split("|")) > BATCH_SIZE:
            return f'Too many values supplied for parameter "pageids". The limit is {BATCH_SIZE}.'
        if not (user_agent.startswith("picforge/") and "(" in user_agent and "python-requests/" in user_agent):
            return f"User-Agent {user_agent!r} does not follow the policy"
        return ""


class ApiHandler(QuietHandler):
    def do_GET(self):
        server = self.server
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
        server.requests.append(params)
        if server.script:
            status, headers, body = server.script.pop(0)
        else:
            status, headers, body = server.answer(params, self.headers.get("User-Agent", ""))
        self.reply(status, json.dumps(body).encode("utf-8"), "application/json; charset=utf-8", headers)


@contextlib.contextmanager
def serving(pages, **options):
    """A LocalApi over `pages` ({page_id: (title, [category titles])}) serving in a thread until the block ends."""
    server = LocalApi(pages, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
