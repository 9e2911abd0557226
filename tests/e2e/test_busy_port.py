"""A second server or gateway on a taken address exits at once with a clear message, instead of
sharing the port with the first (gRPC's SO_REUSEPORT would let two servers split the traffic)."""
import os
import subprocess
import time

from stack import BIN


def password_of(url):
    return url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]


def test_a_second_server_on_a_taken_port_exits_with_a_clear_message(api):
    started = time.time()
    second = subprocess.run([os.path.join(BIN, "hotel-server"), "--listen", api.grpc_addr, "--database_url", api.db_url],
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

