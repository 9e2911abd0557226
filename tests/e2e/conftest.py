import contextlib
import os
import subprocess
import uuid

import pytest

import crashes
from logshape import check_log
from stack import PG_DIR, PG_PORT, ROOT, Cluster, Stack


def start_cluster(port, directory):
    """Starts (or finds running) a project-local cluster; returns its scripts/postgres.sh
    environment and its Cluster (the roles' URLs)."""
    env = dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=directory)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True,
                   capture_output=True, env=env)
    return env, Cluster(port, directory)


@pytest.fixture
def fresh_stack(request):
    """A stack on an empty database of its own (not migrated), nothing started: a test starts what it needs."""
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(cluster, f"hotel_{request.module.__name__.removeprefix('test_')}_{os.getpid()}")
    stack.create_database()
    yield stack
    stack.stop()


def local_stack(name, server_args=(), gateway_args=()):
    """A server and a gateway (started with server_args and gateway_args) over a fresh database
    `name`_<pid> in the test run's cluster."""
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    return Stack(cluster, f"{name}_{os.getpid()}").start(server_args, gateway_args)


# Every test runs shuffled (pytest-randomly shuffles the modules, then the tests within each; it prints the
# seed, and -p randomly --randomly-seed=<seed> repeats the order): each makes the data it needs (fixtures and
# factories below) and passes alone.


@contextlib.contextmanager
def replica_pair(name, server_args=()):
    """Two servers, each with its gateway, on one fresh database `name`_<pid> of the test run's cluster."""
    _, cluster = start_cluster(PG_PORT, PG_DIR)
    first = Stack(cluster, f"{name}_{os.getpid()}").start(server_args=server_args)
    second = Stack(cluster, first.database)
    try:
        second.start_server(extra_args=list(server_args))
        second.start_gateway()
        second.wait_ready()
        yield first, second
    finally:
        second.stop(keep_database=True)
        first.stop()


def fresh_id(prefix="P"):
    """A property code no other test has used (prefix, then random upper-case hex; 10 characters, the
    longest a property code may be), so a test's data never meets another's on a shared stack."""
    return (prefix + uuid.uuid4().hex.upper())[:10]


ROOM_TYPE = {"code": "STD", "name": "Standard", "category": "STANDARD", "amenities": ["desk", "wifi"],
             "size_sqm": 20, "max_guests": 2, "bed_type": "QUEEN"}


def new_property(stack, prefix="P", room_types=("STD",), rooms=(), floor=1, **fields):
    """Makes through the API a property of the test's own (fresh_id(prefix); fields override the
    body), its room types (codes, each a ROOM_TYPE) and its rooms (numbers on floor, of the first room
    type). Returns the property's id; its room types are "<id>-<code>"."""
    property_id = fresh_id(prefix)
    body = {"id": property_id, "name": "Test House", "time_zone": "Europe/Berlin", "city": "Berlin",
            "country_code": "DE", **fields}
    created = stack.post("/properties", body)
    assert created.status == 201, created
    for code in room_types:
        created = stack.post("/room-types", {**ROOM_TYPE, "property_id": property_id, "code": code})
        assert created.status == 201, created
    for number in rooms:
        created = stack.post("/rooms", {"property_id": property_id, "number": number, "floor": floor,
                                        "room_type_id": f"{property_id}-{room_types[0]}"})
        assert created.status == 201, created
    return property_id


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


@pytest.fixture(autouse=True)
def no_crash():
    """Fails the test during which a stack's server or gateway crashed, with its backtrace (crashes.py). Autouse:
    set up first, so torn down last, after the test's own stacks have stopped."""
    yield
    crashes.fail_on_crashes()


def pytest_sessionfinish(session):
    """A crash seen only after the last test (a session stack stopping) fails the run too, printed."""
    reports = crashes.take_crashes()
    if reports:
        print("\n\na test stack's process crashed:\n\n" + "\n\n".join(reports))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
