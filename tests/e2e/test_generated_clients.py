"""Clients generated from the served OpenAPI document by three pinned generators — Python
(openapi-python-client), TypeScript (openapi-typescript + openapi-fetch, type-checked by tsc) and
Go (oapi-codegen) — call every operation against a stack of their own: its success case and at
least one error case. Every call must answer the expected status and be decoded into the
generated type the document names for it: no crash, no response typed as the wrong schema.
The uploads (multipart/form-data) send a JPEG made here with Pillow. The programs are in
tests/clients/; each prints one JSON line with its counts."""
import json
import os
import subprocess
import sys

import pytest
from PIL import Image, ImageDraw

from conftest import start_cluster
from stack import BIN, PG_DIR, PG_PORT, ROOT, Stack, free_port

CLIENTS = os.path.join(ROOT, "tests", "clients")


@pytest.fixture(scope="module")
def client_stack():
    _, admin_url = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(admin_url, f"hotel_clients_{os.getpid()}").start()
    seeded = stack.images("seed")
    assert seeded.returncode == 0, seeded.stderr
    # A gateway whose server is down: every operation's 503.
    dead = subprocess.Popen([os.path.join(BIN, "hotel-gateway"), "--listen", f"127.0.0.1:{free_port()}",
                             "--grpc-server", f"127.0.0.1:{free_port()}"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    stack.dead_root = dead.stdout.readline().split("listening on ", 1)[1].strip()
    yield stack
    dead.terminate()
    dead.wait(timeout=15)
    stack.stop()


@pytest.fixture(scope="module")
def spec(client_stack, tmp_path_factory):
    path = tmp_path_factory.mktemp("openapi") / "openapi.json"
    resp = client_stack.get("/openapi.json")
    assert resp.status == 200 and resp.json["openapi"].startswith("3."), resp
    path.write_text(resp.text)
    operations = [op["operationId"] for item in resp.json["paths"].values() for op in item.values()]
    return path, operations


@pytest.fixture(scope="module")
def picture(tmp_path_factory):
    """A small real JPEG for the uploads."""
    path = tmp_path_factory.mktemp("picture") / "photo.jpg"
    image = Image.new("RGB", (320, 240), (40, 90, 160))
    ImageDraw.Draw(image).ellipse((60, 40, 220, 200), fill=(230, 180, 30))
    image.save(path, "JPEG", quality=85)
    return str(path)


def run(args, cwd, timeout=600):
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(map(str, args))}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def check_counts(stdout, operations, capsys):
    result = json.loads(stdout.strip().splitlines()[-1])
    with capsys.disabled():
        print(f"\n{result['generator']}: {result['operations']} operations called, {result['passed']} passed, "
              f"{result['calls']} calls")
    assert result["failures"] == [], result["failures"]
    assert result["operations"] == len(operations) and result["passed"] == len(operations), result
    assert result["calls"] >= 2 * len(operations), result


def test_python_client_openapi_python_client(client_stack, spec, picture, tmp_path, capsys):
    path, operations = spec
    run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(path),
         "--output-path", str(tmp_path / "hotel_client"), "--meta", "none"], cwd=tmp_path)
    out = run([sys.executable, os.path.join(CLIENTS, "python", "exercise.py"), str(tmp_path), client_stack.root,
               client_stack.dead_root, picture], cwd=tmp_path)
    check_counts(out, operations, capsys)


def test_typescript_client_openapi_typescript_and_openapi_fetch(client_stack, spec, picture, capsys):
    path, operations = spec
    cwd = os.path.join(CLIENTS, "typescript")
    # node_modules: npm ci by scripts/install-deps.sh, pinned by package-lock.json.
    run(["npx", "--no-install", "openapi-typescript", str(path), "-o", "gen/schema.d.ts"], cwd=cwd)
    run(["npx", "--no-install", "tsc", "-p", "."], cwd=cwd)  # strict: every call and field read type-checked
    out = run(["node", "build/exercise.js", client_stack.root, client_stack.dead_root, picture], cwd=cwd)
    check_counts(out, operations, capsys)


def test_go_client_oapi_codegen(client_stack, spec, picture, capsys):
    path, operations = spec
    cwd = os.path.join(CLIENTS, "go")
    os.makedirs(os.path.join(cwd, "gen"), exist_ok=True)
    env_run = ["env", "GOFLAGS=-mod=mod"]
    run([*env_run, "go", "tool", "oapi-codegen", "-generate", "types,client", "-package", "gen",
         "-o", "gen/client.gen.go", str(path)], cwd=cwd)
    out = run([*env_run, "go", "run", ".", client_stack.root, client_stack.dead_root, picture], cwd=cwd)
    check_counts(out, operations, capsys)
