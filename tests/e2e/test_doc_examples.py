"""Examples that cannot rot: every curl and grpcurl command in the shell blocks of README.md and
docs/*.md runs against a fresh stack of its own, page by page, in page order, in one bash session
per page (so an id captured by one example serves the next), with only tools the install provides.

Hosts are rewritten to the stack (localhost:8080 → its gateway, localhost:50051 → its server).
Each curl must answer 2xx, or exactly the status its trailing comment names (`# 400 ...`); each
grpcurl must succeed. Variable assignments and shell functions in the blocks run too; other
commands (scripts, hotel-images, kubectl, ...) are not examples of the API and are skipped."""
import glob
import os
import re
import subprocess

import pytest

from conftest import start_cluster
from stack import PG_DIR, PG_PORT, ROOT, Stack

PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
RUN = re.compile(r"^(curl\s|build/bin/grpcurl\s|[a-z_]+\(\)\s*\{)")
# A plain assignment (api=..., ISSUE_ID=$(curl ...)); not an environment prefix of another command.
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=(\$\(.*\)|\S+)$", re.S)

# curl as the examples are written, but failing on an unexpected status (and printing the body).
PRELUDE = r'''
set -eo pipefail
curl() {
  local body code
  body=$(mktemp)
  code=$(command curl -sS -o "$body" -w '%{http_code}' "$@") || { echo "curl could not connect: $*" >&2; return 1; }
  cat "$body"; echo
  if [[ -n "$EXPECT" && "$code" != "$EXPECT" ]] || [[ -z "$EXPECT" && "$code" != 2* ]]; then
    echo "HTTP $code (expected ${EXPECT:-2xx}) from: curl $*" >&2; cat "$body" >&2; return 1
  fi
}
trap 'echo "example failed: $WHERE" >&2' ERR
'''


def examples(page):
    """(line number, command, expected status or None) of every runnable command of a page."""
    lines = open(os.path.join(ROOT, page)).read().splitlines()  # an absolute page path is kept
    out, in_block, command, start = [], False, [], 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_block = not in_block and line.strip("`").strip() in ("sh", "bash", "shell", "console")
            continue
        if not in_block:
            continue
        if not command:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            start = number
        command.append(line)
        text = "\n".join(command)
        if line.endswith("\\") or text.count("'") % 2:
            continue  # continued on the next line, or inside a quoted JSON body
        command = []
        if RUN.match(text) or ASSIGNMENT.match(text):
            expected = re.search(r"#\s*(\d{3})\b[^'\n]*$", text)
            out.append((start, text, expected.group(1) if expected else None))
    return out


@pytest.fixture(scope="module")
def docs_stack():
    _, admin_url = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(admin_url, f"hotel_docs_{os.getpid()}").start()
    # The pictures scripts/up.sh seeds, which the image pages' examples read, change and remove.
    seeded = stack.images("seed")
    assert seeded.returncode == 0, seeded.stderr
    yield stack
    stack.stop()


def test_every_page_has_its_examples_found():
    found = {page: len(examples(page)) for page in PAGES}
    # The pages that document the API must keep executable examples.
    for page in ("README.md", "docs/room-data.md", "docs/images.md", "docs/maintenance.md", "docs/health.md"):
        assert found[page] >= 2, found


def run_page(stack, page):
    http = stack.root.removeprefix("http://")
    script = [PRELUDE]
    for line, command, expected in examples(page):
        command = command.replace("localhost:8080", http).replace("localhost:50051", stack.grpc_addr)
        script += [f"WHERE={page}:{line}", f"EXPECT={expected or ''}", command, ""]
    return subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("page", PAGES)
def test_examples_of_the_page_run_in_order(docs_stack, page):
    if not examples(page):
        pytest.skip(f"{page} has no curl or grpcurl example")
    run = run_page(docs_stack, page)
    assert run.returncode == 0, f"{run.stderr[-3000:]}\n--- output:\n{run.stdout[-2000:]}"
    assert "command not found" not in run.stderr, run.stderr


def test_a_rotten_example_fails_the_run(docs_stack, tmp_path):
    """The runner is not lenient: a forbidden transition (the old ON_HOLD → RESOLVED example), a
    stale etag or an unannotated error status each fail the page, naming the line."""
    page = tmp_path / "rotten.md"
    page.write_text("""```sh
api=http://localhost:8080/api/v1
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
ISSUE_ID=$(curl -s -X POST "$api/issues" -H 'Content-Type: application/json' \\
  -d '{"property_id":"BER1","room_number":"102","title":"Rotten","category":"OTHER","reported_by":"docs"}' | field id)
curl -X PATCH "$api/issues/$ISSUE_ID" -d '{"status":"ON_HOLD","reason":"parts"}'
curl -X PATCH "$api/issues/$ISSUE_ID" -d '{"status":"RESOLVED"}'
```
""")
    run = run_page(docs_stack, str(page))
    assert run.returncode != 0
    assert "HTTP 409 (expected 2xx)" in run.stderr and f"example failed: {page}:7" in run.stderr, run.stderr
    # Annotated, the same error is what the example shows, and the page passes.
    page.write_text(page.read_text().replace("""'{"status":"RESOLVED"}'""", """'{"status":"RESOLVED"}'   # 409"""))
    assert run_page(docs_stack, str(page)).returncode == 0
