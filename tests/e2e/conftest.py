import os
import subprocess

import pytest

from stack import ROOT, Stack


def start_cluster(port, directory):
    env = dict(os.environ, HOTEL_PG_PORT=str(port), HOTEL_PG_DIR=directory)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True,
                   capture_output=True, env=env)
    return env, f"postgresql://hotel@127.0.0.1:{port}/postgres"


@pytest.fixture(scope="session")
def api():
    """The shared stack: the project-local cluster, a fresh database, a server and a gateway."""
    _, admin_url = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    stack = Stack(admin_url, f"hotel_e2e_{os.getpid()}").start()
    yield stack
    stack.stop()
