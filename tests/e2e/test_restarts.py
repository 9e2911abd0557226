"""SIGTERM: both processes exit cleanly and quickly; a restarted server is picked up by the
running gateway without restarting it."""
import os
import signal
import time

import pytest

from conftest import start_cluster
from stack import ROOT, Stack, free_port


@pytest.fixture
def own_stack():
    _, admin_url = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    stack = Stack(admin_url, f"hotel_restart_{os.getpid()}")
    stack.psql(f"DROP DATABASE IF EXISTS {stack.database} WITH (FORCE)", admin_url)
    stack.psql(f"CREATE DATABASE {stack.database}", admin_url)
    yield stack
    stack.stop()


def test_server_restart_is_picked_up_by_the_gateway(own_stack):
    port = free_port()
    own_stack.start_server(f"127.0.0.1:{port}")
    own_stack.start_gateway()
    own_stack.wait_ready()
    assert own_stack.get("/rooms/101?property_id=BER1").status == 200

    own_stack.server.send_signal(signal.SIGTERM)
    started = time.time()
    assert own_stack.server.wait(timeout=15) == 0
    assert time.time() - started < 12
    down = own_stack.get("/rooms/101?property_id=BER1")
    assert down.status == 503, down

    own_stack.start_server(f"127.0.0.1:{port}")
    own_stack.wait_ready()
    assert own_stack.get("/rooms/101?property_id=BER1").status == 200


def test_gateway_exits_cleanly_on_sigterm(own_stack):
    own_stack.start_server()
    own_stack.start_gateway()
    own_stack.wait_ready()
    own_stack.gateway.send_signal(signal.SIGTERM)
    assert own_stack.gateway.wait(timeout=20) == 0
    with pytest.raises(OSError):
        own_stack.get("/health/live", timeout=2)
