"""Stopping PostgreSQL: requests fail fast with 503/UNAVAILABLE, health says NOT_SERVING, the
process stays up, and it serves again after PostgreSQL restarts, without a restart of its own.
Uses a cluster of its own so the other tests are not disturbed."""
import os
import subprocess
import time
import urllib.request

import pytest

from conftest import start_cluster
from load import MixedLoad
from stack import ROOT, Stack, cluster_port, wait_for

DIRECTORY = os.path.join(ROOT, ".local", "outage")
PORT = int(os.environ.get("HOTEL_OUTAGE_PG_PORT") or cluster_port(DIRECTORY))


def pg(env, *args):
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), *args], check=True,
                   capture_output=True, env=env)


@pytest.fixture(scope="module")
def outage_stack():
    env, cluster = start_cluster(PORT, DIRECTORY)
    stack = Stack(cluster, "hotel_outage").start()
    yield stack, env
    pg(env, "start")
    stack.stop()
    pg(env, "stop")


def test_outage_fails_fast_and_recovers(outage_stack):
    stack, env = outage_stack
    assert stack.get("/rooms/101?property_id=BER1").status == 200

    pg(env, "stop", "immediate")
    try:
        start = time.time()
        resp = stack.get("/rooms/101?property_id=BER1")
        elapsed = time.time() - start
        assert resp.status == 503, resp
        assert resp.json["code"] == 14
        assert elapsed < 3, f"took {elapsed:.1f}s"
        assert stack.get("/rooms?floor=1").status == 503
        health = stack.get("/health")
        assert health.status == 503 and health.json["status"] == "NOT_SERVING"
        assert stack.get("/health/live").status == 200
        assert wait_for(lambda: stack.tool("grpc-health-probe", "-addr", stack.grpc_addr).returncode != 0, 5)
        # What the HotelDatabaseUnavailable alert watches (deploy/k8s/components/monitoring).
        with urllib.request.urlopen(stack.metrics_url, timeout=10) as resp:
            assert "\nhotel_server_database_up 0\n" in resp.read().decode()
        probe = stack.tool("grpc-health-probe", "-addr", stack.grpc_addr)
        assert "NOT_SERVING" in probe.stdout + probe.stderr
        assert stack.server.poll() is None, "server must stay up"
    finally:
        pg(env, "start")

    restarted = time.time()
    assert wait_for(lambda: stack.get("/rooms/101?property_id=BER1").status == 200, 10)
    assert time.time() - restarted < 5
    assert wait_for(lambda: stack.tool("grpc-health-probe", "-addr", stack.grpc_addr).returncode == 0, 5)
    assert stack.get("/health").status == 200


def test_outage_under_mixed_load_loses_no_acknowledged_write(outage_stack, capsys):
    stack, env = outage_stack
    try:
        with MixedLoad(stack) as load:
            pg(env, "stop", "immediate")
            assert wait_for(lambda: stack.get("/health").status == 503, 10)
            # The outage lasts while the load keeps failing: 50 more failed requests.
            assert load.wait_failed(50, 20), load.outcomes
            assert stack.server.poll() is None, "server must stay up"
            pg(env, "start")
            restarted = time.time()
            assert wait_for(lambda: stack.get("/rooms/101?property_id=BER1").status == 200, 10)
            recovered = time.time() - restarted
            # The load goes on after the recovery: 100 more requests served.
            assert load.wait_served(100, 20), load.outcomes
    finally:
        pg(env, "start")
    load.settle()
    verified = load.verify_writes()

    with capsys.disabled():
        print("\n" + load.report("database outage under load") + f"; served again {recovered:.2f} s after restart")
    assert recovered <= 2, f"served again only {recovered:.1f} s after PostgreSQL restarted"
    assert stack.server.poll() is None
    # Failures are fast and explicit: 503 from the service, never a 500, a hang or a dropped connection.
    assert load.failures() <= {"read 503", "write 503"}, load.outcomes
    assert load.failures(), "the outage was not observed by the load"
    assert load.slowest_failure < 3, f"a failed request took {load.slowest_failure:.1f} s"
    assert verified > 0
