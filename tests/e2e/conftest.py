import os
import subprocess

import pytest

from logshape import check_log
from stack import PG_DIR, PG_PORT, ROOT, Cluster, Stack


def start_cluster(port, directory):
    """Starts (or finds running) a project-local cluster; returns its scripts/postgres.sh
    environment and its Cluster (the roles' URLs)."""
    env = dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=directory)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True,
                   capture_output=True, env=env)
    return env, Cluster(port, directory)


def local_stack(name, server_args=(), gateway_args=()):
    """A server and a gateway (started with server_args and gateway_args) over a fresh database
    `name`_<pid> in the test run's cluster."""
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    return Stack(cluster, f"{name}_{os.getpid()}").start(server_args, gateway_args)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(items):
    """The modules run in pytest-randomly's shuffled order (scripts/test.sh), so a module that needs another to
    have run first fails; within a module the tests keep their written order: many modules are one scenario
    over a module-scoped stack, each test building on the state the one before left."""
    written = {id(item): index for index, item in enumerate(items)}
    yield
    modules = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    items[:] = [item for module in modules.values() for item in sorted(module, key=lambda i: written[id(i)])]


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
