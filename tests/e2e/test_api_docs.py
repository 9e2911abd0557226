"""The API reference page (/api/v1/docs) in a real browser: headless Chromium loads it from the gateway, with
nothing fetched from anywhere else, no console error, and every operation of /api/v1/openapi.json listed."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
import websocket

CHROMIUM = shutil.which("chromium")
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


class Browser:
    """Headless Chromium driven over the DevTools protocol; records console errors, uncaught exceptions,
    failed loads and every URL the page requests."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="hotel-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={self.profile}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + 60
        while port is None and time.time() < deadline:
            line = self.process.stderr.readline()
            match = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if match:
                port = match.group(1)
            elif not line and self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
        assert port, "chromium announced no DevTools port"
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(p for p in pages if p["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60)
        self.next_id = 0
        self.errors, self.requested = [], []
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(f"{domain}.enable")

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message["result"]
            self.record(message)

    def record(self, event):
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(("console", [a.get("value", a.get("description")) for a in params["args"]]))
        elif method == "Runtime.exceptionThrown":
            self.errors.append(("exception", params["exceptionDetails"].get("exception", {}).get("description")))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(("log", params["entry"]["text"], params["entry"].get("url")))
        elif method == "Network.requestWillBeSent":
            self.requested.append(params["request"]["url"])

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def close(self):
        self.socket.close()
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    browser = Browser()
    yield browser
    browser.close()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/install-deps.sh installs it)")
def test_the_reference_page_lists_every_operation_without_console_errors(api, browser):
    document = api.get("/openapi.json").json
    operations = {(method.upper(), path) for path, item in document["paths"].items() for method in item
                  if method in METHODS}
    assert len(operations) > 20
    origin = f"http://127.0.0.1:{api.http_port}"
    browser.call("Page.navigate", url=f"{origin}/api/v1/docs")
    listing = """[...document.querySelectorAll('.opblock')].map(b => [
        b.querySelector('.opblock-summary-method').textContent,
        b.querySelector('.opblock-summary-path').getAttribute('data-path')])"""
    shown = set()
    deadline = time.time() + 60
    while time.time() < deadline:  # the page renders after it has fetched the document
        shown = {tuple(op) for op in browser.evaluate(listing) or []}
        if shown >= operations:
            break
        time.sleep(0.2)
    assert shown == operations, {"missing": operations - shown, "extra": shown - operations}
    assert browser.evaluate("document.title") == "Hotel Data Service API reference"
    assert document["info"]["title"] in browser.evaluate("document.querySelector('.info .title').textContent")
    browser.call("Runtime.evaluate", expression="0")  # drains the events that arrived meanwhile
    assert browser.errors == []
    assert browser.requested and all(url.startswith((origin, "data:")) for url in browser.requested), browser.requested


def test_the_reference_page_and_its_assets_are_served_from_the_gateway(api):
    page = api.get("/docs")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html"), page
    scripts = re.findall(r'(?:src|href)="(/api/v1/docs/[^"]+)"', page.text)
    assert len(scripts) == 3, page.text
    for path in scripts:
        asset = api.get(path[len("/api/v1"):])
        assert asset.status == 200 and asset.headers["X-Content-Type-Options"] == "nosniff", (path, asset)
    assert "/api/v1/openapi.json" in api.get("/docs/init.js").text
    assert api.get("/docs/LICENSE").status == 200
    assert api.get("/docs/%2e%2e/openapi/openapi.json").status == 404  # nothing but the UI files
    assert api.get("/docs/nothing.js").status == 404
