"""A webhook receiver for the tests: an HTTP server on 127.0.0.1 (port 0) that verifies every
Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature) with the secrets it
is given, records each request, and answers what the test scripts (statuses, delays,
Retry-After)."""
import base64
import hashlib
import hmac
import http.server
import json
import threading
import time


def sign(secret, msg_id, timestamp, body):
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify(secrets, headers, body):
    """True when one of the webhook-signature values is body's signature under one of secrets."""
    given = headers.get("webhook-signature", "").split()
    expected = {sign(s, headers["webhook-id"], headers["webhook-timestamp"], body) for s in secrets}
    return any(hmac.compare_digest(g, e) for g in given for e in expected)


class Receiver:
    """Records every request as {"id", "body", "json", "headers", "status", "at"}; `script` is a list of
    answers consumed one per request: an int status, ("sleep", seconds) or (status, retry_after).
    Once it is empty every request gets 204."""

    def __init__(self, secrets=()):
        self.secrets = list(secrets)
        self.requests = []
        self.script = []
        self.lock = threading.Lock()
        self.delay = 0.0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.handle(self, body)

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a sender that closed its connection (every delivery opens its own)

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handle(self, handler, body):
        headers = {k.lower(): v for k, v in handler.headers.items()}
        with self.lock:
            answer = self.script.pop(0) if self.script else 204
            record = {"id": headers.get("webhook-id"), "timestamp": headers.get("webhook-timestamp"),
                      "signature": headers.get("webhook-signature"), "body": body, "json": json.loads(body),
                      "headers": headers, "status": None,
                      "at": time.time()}
            self.requests.append(record)
        if self.delay:
            time.sleep(self.delay)
        retry_after = None
        if isinstance(answer, tuple) and answer[0] == "sleep":
            time.sleep(answer[1])
            answer = 204
        elif isinstance(answer, tuple):
            answer, retry_after = answer
        record["status"] = answer
        try:
            handler.send_response(answer)
            if retry_after is not None:
                handler.send_header("Retry-After", str(retry_after))
            handler.send_header("Content-Length", "2")
            handler.end_headers()
            handler.wfile.write(b"ok")
        except OSError:
            pass  # the sender gave up (timeout)

    def verified(self, record):
        """Whether record's signature verifies with one of the secrets known now (a subscription's
        secret is known once its creation answered, after its ping)."""
        return verify(self.secrets, record["headers"], record["body"])

    def deliveries(self):
        """The batches (not pings) answered 2xx, in arrival order."""
        with self.lock:
            return [r for r in self.requests if r["json"].get("type") != "ping" and r["status"] in (200, 204)]

    def changes(self):
        """Every change delivered (2xx), once per webhook-id, in order."""
        seen, out = set(), []
        for r in self.deliveries():
            if r["id"] in seen:
                continue
            seen.add(r["id"])
            out += r["json"]["data"]
        return out

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def feed(stack, after, **params):
    """Every change after `after` the feed lists with these filters, oldest first."""
    out = []
    while True:
        query = "&".join([f"after={after}", "page_size=500"] + [f"{k}={v}" for k, v in params.items()])
        page = stack.get(f"/changes?{query}")
        assert page.status == 200, page
        out += page.json["data"]
        after = page.json["next_cursor"]
        if not page.json["data"]:
            return out


def settled(stack, receiver, start, timeout=60, **params):
    """Waits until the receiver has every change the feed lists after start with params (read
    again each time: the feed sequences changes a few milliseconds after they commit); returns them."""
    deadline = time.time() + timeout
    while True:
        expected = feed(stack, start, **params)
        if len(receiver.changes()) >= len(expected) or time.time() > deadline:
            return expected
        time.sleep(0.1)


def check_delivery(receiver, expected):
    """Every 2xx batch verified; the changes once each, in the feed's order, cursors rising."""
    unverified = [r for r in receiver.requests if not receiver.verified(r)]
    assert not unverified, unverified[:1]
    got = receiver.changes()
    assert [c["cursor"] for c in got] == [c["cursor"] for c in expected]
    assert got == expected
