#!/usr/bin/env python3
"""A webhook receiver for the Hotel Data Service (docs/webhooks.md), standard library only.

It verifies every delivery's Standard Webhooks signature, drops what it has seen already (dedupe on
webhook-id: delivery is at least once, and a retried batch keeps its id), applies the changes in
order, and remembers the cursor it reached. The creation's ping comes before you know the secret:
it is answered 2xx without checks (it carries no changes).

    webhook_receiver.py [--port N] [--secret-file F] [--log F]    serve in the foreground
    webhook_receiver.py --background ...                           serve in a child; print its URL
    webhook_receiver.py --wait LOG --count N                       wait for N changes in LOG

The secret (whsec_...) is read from --secret-file at each request, so it may be written there
after the subscription was created.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import sys
import time

TOLERANCE = 5 * 60  # seconds a webhook-timestamp may be off: refuses replays of old deliveries


def verify(secret, headers, body):
    """True when webhook-signature holds a v1 signature of this body by secret, and the timestamp is fresh."""
    msg_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "0")
    if abs(time.time() - int(timestamp)) > TOLERANCE:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest())
    # During a secret rotation the header carries several signatures, space-separated.
    return any(hmac.compare_digest(sig.removeprefix("v1,").encode(), expected)
               for sig in headers.get("webhook-signature", "").split() if sig.startswith("v1,"))


class Receiver(http.server.BaseHTTPRequestHandler):
    seen = set()  # webhook-ids applied (keep them as long as retries can come: a day)
    cursor = ""   # the feed position applied through

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {k.lower(): v for k, v in self.headers.items()}
        payload = json.loads(body)
        if payload.get("type") == "ping":
            return self.answer(204)
        secret = open(self.server.secret_file).read().strip() if os.path.exists(self.server.secret_file) else ""
        if not secret or not verify(secret, headers, body):
            return self.answer(401)
        if headers["webhook-id"] not in Receiver.seen:  # a duplicate is answered 2xx and ignored
            Receiver.seen.add(headers["webhook-id"])
            for change in payload["data"]:  # oldest first, each cursor once
                with open(self.server.log, "a") as log:
                    log.write(json.dumps(change) + "\n")
            Receiver.cursor = payload["next_cursor"]  # list or watch from it if you ever fall back
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--secret-file", default="webhook-secret")
    parser.add_argument("--log", default="webhook-changes.jsonl")
    parser.add_argument("--background", action="store_true", help="serve in a child for 10 minutes; print the URL")
    parser.add_argument("--wait", metavar="LOG")
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args()
    if args.wait:  # a helper for the docs: wait until LOG holds count changes, print them
        deadline = time.time() + 30
        while time.time() < deadline:
            lines = open(args.wait).read().splitlines() if os.path.exists(args.wait) else []
            if len(lines) >= args.count:
                print("\n".join(lines))
                return 0
            time.sleep(0.1)
        print(f"no {args.count} changes in {args.wait} after 30 s", file=sys.stderr)
        return 1
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Receiver)
    server.secret_file, server.log = os.path.abspath(args.secret_file), os.path.abspath(args.log)
    url = f"http://127.0.0.1:{server.server_address[1]}/hooks/hotel"
    if args.background:
        if os.fork():
            print(url)
            return 0
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        server.timeout = 1
        end = time.time() + 600
        while time.time() < end:
            server.handle_request()
        return 0
    print(f"listening on {url}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
