"""A local (127.0.0.1) HTTP server speaking the OpenAI chat-completions wire format, with scripted faults.

It answers the SLICE prompt with a sentence that starts with the requested letter and embeds the phrase
(first letter lower-cased, final full stop dropped), PEARL's paraphrase prompt with the phrase's words reversed
(quoted, with a full stop), and counts every request it receives.
"""
import json
import re
import threading
import time
from http.server import ThreadingHTTPServer

from tests.http_helpers import QuietHandler

PROMPT = re.compile(r"start with the letter (?P<letter>[A-Z]) the phrase is: (?P<phrase>.*)\Z", re.S)
PARAPHRASE_PROMPT = re.compile(r"\nPhrase: (?P<phrase>.*)\Z", re.S)  # PEARL's phrase-level augmentation
MALFORMED_BODY = '{"id": "chatcmpl-broken", "object": "chat.completion", "choices": ['


def embedded_context(letter, phrase):
    """A generated-looking sentence starting with `letter` that holds the phrase mid-sentence."""
    core = phrase.strip().rstrip(".!?")
    return f"{letter}. J. Harlow wrote in her diary that {core[0].lower()}{core[1:]}, while the crowd watched."


def paraphrased(phrase):
    """The scripted paraphrase of a phrase: its words in reverse order."""
    return " ".join(reversed(phrase.split()))


class FakeOpenAI:
    """The server's state: requests received, faults by phrase substring, and the key it expects.

    Faults: "429-once", "503-once" (fail the first request of a prompt), "malformed" (truncated JSON body),
    "no-phrase" (an answer without the phrase), "unauthorized" (401), "negative-usage" (a lying usage count).
    """

    def __init__(self, faults=None, api_key="sk-test-key", delay=0.02):
        self.faults = dict(faults or {})
        self.api_key, self.delay = api_key, delay
        self.active = self.max_active = 0
        self.requests = []
        self.seen = {}
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def count(self):
        with self.lock:
            return len(self.requests)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def fault_for(self, phrase):
        return next((kind for key, kind in self.faults.items() if key in phrase), None)

    def respond(self, headers, body):
        """(status, extra headers, body text) for one request."""
        request = json.loads(body)
        prompt = request["messages"][-1]["content"]
        match = PROMPT.search(prompt)
        with self.lock:
            self.requests.append({"auth": headers.get("Authorization"), "body": request})
            seen = self.seen[prompt] = self.seen.get(prompt, 0) + 1
        asked = None if match else PARAPHRASE_PROMPT.search(prompt)
        fault = self.fault_for((match or asked)["phrase"]) if (match or asked) else None
        if fault == "unauthorized" or headers.get("Authorization") != f"Bearer {self.api_key}":
            return 401, {}, json.dumps({"error": {"message": "Incorrect API key provided.", "type":
                                                  "invalid_request_error", "param": None, "code": "invalid_api_key"}})
        if fault in ("429-once", "503-once") and seen == 1:
            status = int(fault[:3])
            return status, {"retry-after-ms": "20"}, json.dumps(
                {"error": {"message": "Rate limit reached" if status == 429 else "overloaded",
                           "type": "requests", "param": None, "code": None}})
        if fault == "malformed":
            return 200, {}, MALFORMED_BODY
        letter, phrase = (match["letter"], match["phrase"]) if match else ("A", "nothing")
        content = (f"{letter}ll of a sudden the music stopped and nobody said a word."
                   if fault == "no-phrase" else embedded_context(letter, phrase))
        if asked:
            content = f'"{paraphrased(asked["phrase"])}."'
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(content.split())}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if fault == "negative-usage":
            usage = {"prompt_tokens": -100000, "completion_tokens": 0, "total_tokens": -100000}
        return 200, {}, json.dumps({
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": request["model"], "system_fingerprint": "fp_local",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": None,
                         "finish_reason": "stop"}],
            "usage": usage})

    def _handler(self):
        fake = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    status, extra, text = 404, {}, json.dumps({"error": {"message": f"no route {self.path}"}})
                else:
                    with fake.lock:
                        fake.active += 1
                        fake.max_active = max(fake.max_active, fake.active)
                    time.sleep(fake.delay)
                    status, extra, text = fake.respond(self.headers, body)
                    with fake.lock:
                        fake.active -= 1
                self.reply(status, text.encode("utf-8"), "application/json", extra)

        return Handler
