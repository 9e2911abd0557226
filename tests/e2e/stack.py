"""Starts the real hotel-server and hotel-gateway binaries against a real PostgreSQL database
for end-to-end tests, each on a free loopback port, and talks to them like a client would."""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import crashes

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("HOTEL_BIN_DIR", os.path.join(ROOT, "build", "bin"))
# The hotel-server the stacks run: another build of it, such as a sanitizer's (scripts/watch-stress.sh).
SERVER = os.environ.get("HOTEL_SERVER_BINARY", os.path.join(BIN, "hotel-server"))
# The service's version, as CMakeLists.txt declares it (the server and the gateway report it).
with open(os.path.join(ROOT, "CMakeLists.txt")) as _cmake:
    VERSION = re.search(r"^project\(hotel_data_service VERSION ([0-9.]+)", _cmake.read(), re.M).group(1)
# The cluster the tests use, as for scripts/postgres.sh: scripts/test.sh's own (.local/test-cluster, on a port it
# chose), or when run by hand HOTEL_PG_DIR and HOTEL_PG_PORT (default .local, 54329).
PG_DIR = os.environ.get("HOTEL_PG_DIR", os.path.join(ROOT, ".local"))
PG_PORT = int(os.environ.get("HOTEL_PG_PORT", "54329"))
# Every gateway a test starts serves /metrics on a free port of its own (the default, 9464, would
# be shared by the tests' gateways); a Stack reads it from the gateway's second line.
os.environ.setdefault("GATEWAY_METRICS_LISTEN", "127.0.0.1:0")


class PostgresLog:
    """What the tests' PostgreSQL cluster logs from the moment this is made (e.g. "deadlock detected")."""

    def __init__(self):
        self.path = os.path.join(PG_DIR, "postgres.log")
        self.start = os.path.getsize(self.path)

    def since(self):
        with open(self.path, errors="replace") as log:
            log.seek(self.start)
            return log.read()


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


def wait_for(predicate, timeout):
    """True once predicate() is, polled every 0.1 s; False after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def free_port():
    """A port free now, below the kernel's range for outgoing connections: a port from that range
    (what binding port 0 gives) may be taken by some test's client connection before the process
    meant to listen on it starts."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    for _ in range(100):
        port = random.randrange(max(1024, ephemeral_low - 12000), ephemeral_low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


def cluster_port(directory, count=1):
    """The port for a test's own cluster in directory: the one it runs on, else the first of count ports free
    now (scripts/postgres.sh port; a replica set's node K is on port + K), so tests in two checkouts never
    meet on a fixed port."""
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "port"], check=True,
                         capture_output=True, text=True,
                         env=dict(os.environ, HOTEL_PG_DIR=directory, HOTEL_PG_PORTS=str(count)))
    return int(out.stdout.strip())


def replica_set(port, directory, *args, sync="on"):
    """scripts/replicas.sh ARGS for the primary and standbys in directory (node K on port + K); its output.
    sync "off" makes replication asynchronous (the choice sticks until given again)."""
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "replicas.sh"), *args], check=True,
                         capture_output=True, text=True,
                         env=dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=directory, HOTEL_PG_SYNC=sync))
    return out.stdout.strip()


def replica_set_started(port, directory, standbys=2):
    """scripts/replicas.sh start for a test's replica set; its status. A set left by an earlier run with
    every node down starts over: its standbys follow the port that run had (cluster_port chose a new
    one), so they would never connect and the synchronous primary's commits would wait for them."""
    if all(line.endswith(" down") for line in replica_set(port, directory, "status").splitlines()):
        shutil.rmtree(directory, ignore_errors=True)
    return replica_set(port, directory, "start", str(standbys))


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


class Cluster:
    """The URLs (passwords included) of a project-local cluster's roles, from scripts/postgres.sh:
    admin (superuser: creates databases), owner (owns the schema, migrates) and runtime (what
    the server serves with: DML only). url(role, database) names any database of it."""

    def __init__(self, port, directory=None):
        self.env = dict(os.environ, HOTEL_PG_PORT=str(port))
        if directory:
            self.env["HOTEL_PG_DIR"] = directory
        self._urls = {}

    def url(self, role, database="postgres"):
        if role not in self._urls:
            out = subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "url", role, "DBNAME"],
                                 check=True, capture_output=True, text=True, env=self.env)
            self._urls[role] = out.stdout.strip()
        return self._urls[role].replace("/DBNAME", "/" + database)

    @classmethod
    def from_url(cls, url):
        """The default-directory cluster listening on url's port (older callers passed one URL)."""
        return cls(int(re.search(r":(\d+)/", url).group(1)))


class Stack:
    """A server and a gateway over one database. The database is created fresh, owned by the
    owner role; the server serves as the runtime role and never holds the owner's password
    (migrations run first, with the owner's URL, in a `hotel-server --migrate-only`)."""

    def __init__(self, cluster, database, pg_env=None):
        self.cluster = cluster if isinstance(cluster, Cluster) else Cluster.from_url(cluster)
        self.database = database
        self.admin_url = self.cluster.url("admin")
        self.owner_url = self.cluster.url("owner", database)
        self.db_url = self.cluster.url("runtime", database)
        self.pg_env = pg_env or {}
        self.server = self.gateway = None
        # The gateway serves this image origin under /cdn/; its port is fixed up front so the
        # server can be told the CDN base URL before the gateway starts.
        self.cdn_dir = tempfile.mkdtemp(prefix="hotel-cdn-")
        self.http_port = free_port()
        self.cdn_base_url = f"http://127.0.0.1:{self.http_port}/cdn"

    def psql(self, sql, url=None):
        """Runs sql as the schema owner in this stack's database (fixtures and checks, outside the
        code under test, like a migration would), or at url."""
        out = subprocess.run(["psql", url or self.owner_url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql],
                             check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def create_database(self):
        self.psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)", self.admin_url)
        self.psql(f"CREATE DATABASE {self.database} OWNER hotel", self.admin_url)

    def migrate(self):
        """Applies the migrations as the owner and grants the runtime role, like the deployment's
        init container."""
        out = subprocess.run([os.path.join(BIN, "hotel-server"), "--migrate-only"], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, DATABASE_URL=self.db_url,
                                                   MIGRATION_DATABASE_URL=self.owner_url))
        assert out.returncode == 0, out.stderr

    def start(self, server_args=(), gateway_args=()):
        """Creates the database and starts both processes; when any step fails, stops what it started."""
        try:
            self.create_database()
            self.migrate()
            self.start_server(extra_args=list(server_args))
            self.start_gateway(extra_args=list(gateway_args))
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def start_server(self, listen="127.0.0.1:0", extra_args=(), binary=None):
        """Starts hotel-server (binary: another build of it, such as the previous release's)."""
        self.server_log = tempfile.NamedTemporaryFile(prefix="hotel-server-", suffix=".log", delete=False).name
        # Only the runtime role's URL, also in the environment: the owner's never reaches it.
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MIGRATION_DATABASE_URL")}
        # Nothing balances traffic to a test's server: it may stop at once (tests of graceful
        # termination pass --shutdown-delay).
        env.setdefault("SHUTDOWN_DELAY", "0s")
        # Tests read the line of each call they make; production logs a sample (docs/operations.md).
        env.setdefault("RPC_LOG_SAMPLE", "1")
        env.setdefault("CDN_ORIGIN_DIR", self.cdn_dir)  # uploads write where the gateway serves /cdn/ from
        # The stack's own settings go in the environment, which every release reads alike (the previous
        # release's binary knows only the old snake_case flag spellings); a test's extra_args override them.
        env.update(GRPC_LISTEN=listen, DATABASE_URL=self.db_url, HEALTH_INTERVAL="200ms", CDN_BASE_URL=self.cdn_base_url)
        self.server = subprocess.Popen(
            [binary or SERVER, *extra_args],
            stdout=subprocess.PIPE, stderr=open(self.server_log, "w"), text=True, env=env)
        crashes.watch("hotel-server", self.server, self.server_log)
        self.grpc_addr = _read_address(self.server, r"listening on (\S+)")

    def start_gateway(self, extra_args=()):
        # Its log (JSON lines on stderr), like the server's: tests read both (test_tracing.py), a line
        # for each request they make, where production logs a sample.
        self.gateway_log = tempfile.NamedTemporaryFile(prefix="hotel-gateway-", suffix=".log", delete=False).name
        self.gateway = subprocess.Popen(
            [os.path.join(BIN, "hotel-gateway"), "--listen", f"127.0.0.1:{self.http_port}",
             "--grpc-server", self.grpc_addr, "--cdn-dir", self.cdn_dir, *extra_args],
            stdout=subprocess.PIPE, stderr=open(self.gateway_log, "w"), text=True,
            env=dict(os.environ, GATEWAY_SHUTDOWN_DELAY=os.environ.get("GATEWAY_SHUTDOWN_DELAY", "0s"),
                     GATEWAY_ACCESS_LOG=os.environ.get("GATEWAY_ACCESS_LOG", "all")))
        crashes.watch("hotel-gateway", self.gateway, self.gateway_log)
        self.root = _read_address(self.gateway, r"listening on (http://\S+)")
        self.base = self.root + "/api/v1"
        self.metrics_url = _read_address(self.gateway, r"metrics on (http://\S+)")
        # The admin port: /metrics and the probes (/health/live, /health/ready, /health/startup).
        self.gateway_admin = self.metrics_url.removesuffix("/metrics")

    def http_address(self):
        """The gateway's API (host, port), for tests that speak HTTP on raw connections."""
        host, port = self.root.split("//", 1)[1].split(":")
        return host, int(port)

    def wait_ready(self, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.get("/health/startup").status == 200 and self.feed_ready():
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("service did not become ready")

    def feed_ready(self):
        """Whether a watch can be established: the change feed answers UNAVAILABLE (retry with
        backoff) until its first read of the log, a few milliseconds after the server started."""
        import grpc
        from changefeed import grpc_watch
        with grpc.insecure_channel(self.grpc_addr) as channel:
            call = grpc_watch(channel, timeout=5)
            try:
                next(call)
            except grpc.RpcError as err:
                return err.code() != grpc.StatusCode.UNAVAILABLE
            call.cancel()
            return True

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
        env.pop("MIGRATION_DATABASE_URL", None)
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
