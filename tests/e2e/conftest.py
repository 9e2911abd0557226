import os
import subprocess

import pytest

from logshape import check_log
from stack import ROOT, Cluster, Stack


def start_cluster(port, directory):
    """Starts (or finds running) a project-local cluster; returns its scripts/postgres.sh
    environment and its Cluster (the roles' URLs)."""
    env = dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=directory)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True,
                   capture_output=True, env=env)
    return env, Cluster(port, directory)


def local_stack(name):
    """A server and a gateway over a fresh database `name`_<pid> in the project-local cluster."""
    _, cluster = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    return Stack(cluster, f"{name}_{os.getpid()}").start()


@pytest.fixture(scope="session")
def api():
    """The shared stack: the project-local cluster, a fresh database, a server and a gateway."""
    stack = local_stack("hotel_e2e")
    yield stack
    stack.stop()
    # Every line its processes wrote during the suite has the one log shape (test_tracing.py
    # checks a stack of its own the same way).
    check_log(stack.gateway_log, "hotel-gateway")
    check_log(stack.server_log, "hotel-server")
