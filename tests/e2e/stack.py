"""Starts the real hotel-server and hotel-gateway binaries against a real PostgreSQL database
for end-to-end tests, each on a free loopback port, and talks to them like a client would."""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("HOTEL_BIN_DIR", os.path.join(ROOT, "build", "bin"))


def _read_address(proc, pattern, timeout=30):
    """Reads the process's stdout until the line announcing its address."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise RuntimeError(f"process exited with {proc.returncode}")
            continue
        match = re.search(pattern, line)
        if match:
            return match.group(1)
    raise RuntimeError("process did not announce its address")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.text = body.decode("utf-8", "replace")
        try:
            self.json = json.loads(self.text) if self.text else None
        except ValueError:
            self.json = None

    def reason(self):
        """The google.rpc.ErrorInfo reason of an error body."""
        for detail in (self.json or {}).get("details", []):
            if detail.get("@type", "").endswith("google.rpc.ErrorInfo"):
                return detail.get("reason")
        return None

    def violations(self):
        """Field names of the google.rpc.BadRequest of an error body."""
        for detail in (self.json or {}).get("details", []):
            if detail.get("@type", "").endswith("google.rpc.BadRequest"):
                return [v["field"] for v in detail.get("field_violations", detail.get("fieldViolations", []))]
        return []

    def __repr__(self):
        return f"<{self.status} {self.text[:300]}>"


class Stack:
    """A server and a gateway over one database. The database is created fresh."""

    def __init__(self, admin_url, database, pg_env=None):
        self.admin_url = admin_url
        self.database = database
        self.db_url = admin_url.rsplit("/", 1)[0] + "/" + database
        self.pg_env = pg_env or {}
        self.server = self.gateway = None
        # The gateway serves this image origin under /cdn/; its port is fixed up front so the
        # server can be told the CDN base URL before the gateway starts.
        self.cdn_dir = tempfile.mkdtemp(prefix="hotel-cdn-")
        self.http_port = free_port()
        self.cdn_base_url = f"http://127.0.0.1:{self.http_port}/cdn"

    def psql(self, sql, url=None):
        out = subprocess.run(["psql", url or self.db_url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql],
                             check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def start(self):
        self.psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)", self.admin_url)
        self.psql(f"CREATE DATABASE {self.database}", self.admin_url)
        self.start_server()
        self.start_gateway()
        self.wait_ready()
        return self

    def start_server(self, listen="127.0.0.1:0"):
        self.server_log = tempfile.NamedTemporaryFile(prefix="hotel-server-", suffix=".log", delete=False).name
        self.server = subprocess.Popen(
            [os.path.join(BIN, "hotel-server"), "--listen", listen, "--database_url", self.db_url,
             "--health_interval", "200ms", "--cdn_base_url", self.cdn_base_url],
            stdout=subprocess.PIPE, stderr=open(self.server_log, "w"), text=True)
        self.grpc_addr = _read_address(self.server, r"listening on (\S+)")

    def start_gateway(self):
        self.gateway = subprocess.Popen(
            [os.path.join(BIN, "hotel-gateway"), "--listen", f"127.0.0.1:{self.http_port}",
             "--grpc-server", self.grpc_addr, "--cdn-dir", self.cdn_dir],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.root = _read_address(self.gateway, r"listening on (http://\S+)")
        self.base = self.root + "/api/v1"

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.get("/health/startup").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("service did not become ready")

    def stop(self, keep_database=False):
        for proc in (self.gateway, self.server):
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        try:
            if not keep_database:
                self.psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)", self.admin_url)
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.cdn_dir, ignore_errors=True)

    def images(self, *args):
        """Runs the hotel-images command against this stack's database and CDN origin."""
        env = dict(os.environ, DATABASE_URL=self.db_url, CDN_ORIGIN_DIR=self.cdn_dir, CDN_BASE_URL=self.cdn_base_url)
        return self.tool("hotel-images", *args, env=env, timeout=120)

    def request(self, method, path, body=None, headers=None, raw=None, timeout=10):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if data is not None and "Content-Type" not in (headers or {}):
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return Response(resp.status, resp.headers, resp.read())
        except urllib.error.HTTPError as err:
            return Response(err.code, err.headers, err.read())

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body=body, **kw)

    def tool(self, name, *args, timeout=20, env=None):
        """Runs a tool built into build/bin (grpcurl, grpc-health-probe, hotel-images)."""
        return subprocess.run([os.path.join(BIN, name), *args], capture_output=True, text=True, timeout=timeout,
                              env=env)
