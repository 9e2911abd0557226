"""A second server or gateway on a taken address exits at once with a clear message, instead of
sharing the port with the first (gRPC's SO_REUSEPORT would let two servers split the traffic); a
cluster on a taken port is refused the same way, and the test run's own cluster starts beside a
developer's cluster on the default port."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from stack import BIN, ROOT


def password_of(url):
    return url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]


def test_a_second_server_on_a_taken_port_exits_with_a_clear_message(api):
    started = time.time()
    second = subprocess.run([os.path.join(BIN, "hotel-server"), "--listen", api.grpc_addr, "--database-url", api.db_url],
                            capture_output=True, text=True, timeout=20)
    assert second.returncode != 0
    assert time.time() - started < 5
    assert "cannot listen" in second.stderr and "Address already in use" in second.stderr, second.stderr
    assert "listening on" not in second.stdout
    assert password_of(api.db_url) not in second.stderr
    listeners = subprocess.run(["ss", "-Hltn", f"sport = :{api.grpc_addr.rsplit(':', 1)[1]}"],
                               capture_output=True, text=True).stdout.strip().splitlines()
    assert len(listeners) == 1, listeners
    assert api.get("/rooms/101?property_id=BER1").status == 200  # the first one is untouched


def test_a_second_gateway_on_a_taken_port_exits_with_a_clear_message(api):
    started = time.time()
    second = subprocess.run([os.path.join(BIN, "hotel-gateway"), "--listen", f"127.0.0.1:{api.http_port}",
                             "--grpc-server", api.grpc_addr], capture_output=True, text=True, timeout=20)
    assert second.returncode != 0
    assert time.time() - started < 5
    assert "cannot listen" in second.stderr and "address already in use" in second.stderr, second.stderr
    assert api.get("/health/live").status == 200



POSTGRES_SH = os.path.join(ROOT, "scripts", "postgres.sh")


@pytest.fixture
def cluster_dir():
    """A directory for a cluster of the test's own, under .local/ (the postgres user cannot reach pytest's tmp_path)."""
    os.makedirs(os.path.join(ROOT, ".local"), exist_ok=True)
    directory = tempfile.mkdtemp(prefix="busy-port-", dir=os.path.join(ROOT, ".local"))
    os.chmod(directory, 0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def postgres_sh(env, *args):
    return subprocess.run(["bash", POSTGRES_SH, *args], env=env, capture_output=True, text=True, timeout=120)


def test_a_cluster_on_a_taken_port_is_refused_with_the_port_named(cluster_dir):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=cluster_dir)
        started = postgres_sh(env, "start")
    assert started.returncode != 0
    assert f"port {port} is already in use" in started.stderr and "HOTEL_PG_PORT=" in started.stderr, started.stderr


def test_the_test_run_cluster_starts_while_another_holds_the_default_port(cluster_dir):
    """scripts/test.sh's way to its own cluster: a directory of its own and `postgres.sh port` (a free port)."""
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 54329))
        holder.listen()
    except OSError:
        pass  # a developer's cluster holds it already, which is the case under test
    env = {k: v for k, v in os.environ.items() if k != "HOTEL_PG_PORT"}
    env["HOTEL_PG_DIR"] = cluster_dir
    try:
        port = postgres_sh(env, "port").stdout.strip()
        assert port.isdigit() and port != "54329"
        env["HOTEL_PG_PORT"] = port
        started = postgres_sh(env, "start")
        assert started.returncode == 0, started.stderr
        assert postgres_sh(env, "port").stdout.strip() == port  # a second run finds it where it is
        url = postgres_sh(env, "url", "admin").stdout.strip()
        answer = subprocess.run(["psql", url, "-qAtc", "SHOW port"], capture_output=True, text=True)
        assert answer.stdout.strip() == port, answer.stderr
    finally:
        postgres_sh(env, "stop", "immediate")
        holder.close()
