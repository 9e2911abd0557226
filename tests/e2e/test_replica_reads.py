"""Reads from replicas with read-your-writes (docs/consistency.md): a primary and two quorum-synchronous
standbys on loopback (scripts/replicas.sh), the real server with DATABASE_READ_URL over the standbys, the
real gateway. Every write answers a consistency token; a read that carries it never sees older data, even
from standbys that apply the WAL late on purpose (recovery_min_apply_delay); reads without one land on the
standbys; a standby lagging past READ_MAX_LAG is taken out until it catches up, and one that is gone
costs nothing but a read elsewhere."""
import collections
import concurrent.futures
import io
import json
import os
import re
import subprocess
import threading
import time
import urllib.request
import uuid

import pytest
from PIL import Image

from stack import BIN, ROOT, Cluster, Stack, cluster_port, replica_set, replica_set_started, wait_for
from upload_body import multipart

DIRECTORY = os.path.join(ROOT, ".local", "replica-reads")
PORT = int(os.environ.get("HOTEL_REPLICA_READS_PG_PORT") or cluster_port(DIRECTORY, 3))
PAIRS = 1000  # write-then-read pairs against the delayed standbys
APPLY_DELAY_MS = 40  # below READ_TOKEN_WAIT (100 ms): a token read waits for the standby, then reads there


def replicas(*args):
    return replica_set(PORT, DIRECTORY, *args)


def standby(k):
    return f"127.0.0.1:{PORT + k}"


@pytest.fixture(scope="module")
def api():
    status = replica_set_started(PORT, DIRECTORY)
    assert status.split("\n") == [f"node0 {PORT} primary", f"node1 {PORT + 1} standby", f"node2 {PORT + 2} standby"], \
        status
    for k in (1, 2):
        replicas("delay", str(k), "0")
    cluster = Cluster(PORT, DIRECTORY)
    stack = Stack(cluster, "hotel_replica_reads")
    read_url = re.sub(r"@127\.0\.0\.1:\d+/", f"@{standby(1)},{standby(2)}/", stack.db_url)
    stack.start(server_args=["--database-read-url", read_url])
    yield stack
    stack.stop()
    for k in (1, 2):
        replicas("delay", str(k), "0")
    replicas("stop")


def metrics(stack):
    with urllib.request.urlopen(stack.metrics_url, timeout=10) as resp:
        text = resp.read().decode()
    values = {}
    for line in text.splitlines():
        match = re.match(r'(hotel_server_(?:replica_\w+|read_calls_reads_total))\{\w+="([^"]*)"\} (\S+)$', line)
        if match:
            values[(match.group(1), match.group(2))] = float(match.group(3))
    return values


def reads_served(stack):
    """Reads of read calls so far, by who served them: a standby's host:port, or "primary"."""
    return collections.Counter({label: v for (name, label), v in metrics(stack).items()
                                if name == "hotel_server_read_calls_reads_total"})


def serving(stack, k):
    return metrics(stack).get(("hotel_server_replica_serving", standby(k)))


def new_issue(stack, title="replica reads"):
    resp = stack.post("/issues", {"property_id": "BER1", "room_number": "101", "title": title, "category": "OTHER",
                                  "priority": "LOW", "reported_by": "replica-reads"})
    assert resp.status == 201, resp
    return resp


def test_writes_answer_a_token_and_reads_without_one_land_on_the_standbys(api):
    assert wait_for(lambda: serving(api, 1) == 1 and serving(api, 2) == 1, 10), metrics(api)
    created = new_issue(api)
    token = created.headers["Consistency-Token"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{12}", token), token
    before = reads_served(api)
    for _ in range(40):
        resp = api.get("/issues?property_id=BER1&page_size=5")
        assert resp.status == 200, resp
        assert "Consistency-Token" not in resp.headers, "a read has no token of its own"
    served = reads_served(api) - before
    assert served[standby(1)] + served[standby(2)] >= 40 and served["primary"] == 0, served
    assert served[standby(1)] > 0 and served[standby(2)] > 0, f"both standbys share the reads: {served}"
    # The server's connections on a standby, as the standby sees them.
    standby_admin = re.sub(r"@127\.0\.0\.1:\d+/", f"@{standby(1)}/", api.cluster.url("admin"))
    on_standby = api.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hotel-server' "
                          "AND datname = 'hotel_replica_reads'", standby_admin)
    assert int(on_standby) >= 1

    # The same over gRPC: the token in the write's response metadata, sent back in the read's.
    grpcurl = [os.path.join(BIN, "grpcurl"), "-plaintext", "-v"]
    update = json.dumps({"id": created.json["id"], "issue": {"priority": "HIGH"}})
    out = subprocess.run([*grpcurl, "-d", update, api.grpc_addr, "hotel.v1.IssueService/UpdateIssue"],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    grpc_token = re.search(r"^consistency-token: (\S+)$", out.stdout, re.M).group(1)
    out = subprocess.run([*grpcurl, "-H", f"consistency-token: {grpc_token}", "-d",
                          json.dumps({"id": created.json["id"]}), api.grpc_addr,
                          "hotel.v1.IssueService/GetIssue"], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0 and '"priority": "HIGH"' in out.stdout, out.stdout + out.stderr

    bad = api.get(f"/issues/{created.json['id']}", headers={"Consistency-Token": "not-a-token"})
    assert bad.status == 400 and bad.reason() == "INVALID_CONSISTENCY_TOKEN", bad
    assert "consistency_token" in bad.text


def png_upload(width, height):
    """A multipart/form-data body with a generated PNG as `file` and an alt_text, and its Content-Type."""
    picture = io.BytesIO()
    Image.new("RGB", (width, height), (40, 90, 160)).save(picture, "PNG")
    return multipart(picture.getvalue(), filename="p.png", content_type="image/png", alt_text="Replica test")


def test_an_image_upload_answers_a_token_that_reads_its_gallery_from_delayed_standbys(api):
    """An upload is a write like any other: its token makes the gallery read show the new image, also
    from standbys applying the WAL late."""
    for k in (1, 2):
        replicas("delay", str(k), f"{APPLY_DELAY_MS}ms")
    try:
        for n in range(5):
            body, content_type = png_upload(64 + n, 48)
            created = api.request("POST", "/room-types/BER1-STD/images", raw=body,
                                  headers={"Content-Type": content_type})
            assert created.status == 201, created
            token = created.headers.get("Consistency-Token", "")
            assert re.fullmatch(r"[A-Za-z0-9_-]{12}", token), dict(created.headers)
            gallery = api.get("/room-types/BER1-STD/images", headers={"Consistency-Token": token})
            assert gallery.status == 200, gallery
            assert created.json["id"] in [image["id"] for image in gallery.json["data"]], gallery.json
    finally:
        for k in (1, 2):
            replicas("delay", str(k), "0")


def test_a_read_with_the_token_never_sees_older_data_from_delayed_standbys(api):
    issues = [new_issue(api, f"pair {n}").json["id"] for n in range(8)]
    for k in (1, 2):
        replicas("delay", str(k), f"{APPLY_DELAY_MS}ms")
    stale_with_token, stale_without_token, without_token = [], 0, 0
    lock = threading.Lock()

    def pairs(issue_id, count):
        nonlocal stale_without_token, without_token
        for n in range(count):
            title = f"{issue_id} v{n} {uuid.uuid4().hex[:6]}"
            written = api.patch(f"/issues/{issue_id}", {"title": title})
            assert written.status == 200, written
            token = written.headers["Consistency-Token"]
            if n % 10 == 0:  # the delay is real: without the token the standbys answer the older title
                plain = api.get(f"/issues/{issue_id}")
                with lock:
                    without_token += 1
                    stale_without_token += plain.json["title"] != title
            read = api.get(f"/issues/{issue_id}", headers={"Consistency-Token": token})
            assert read.status == 200, read
            if read.json["title"] != title:
                with lock:
                    stale_with_token.append((title, read.json["title"]))

    before = reads_served(api)
    started = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(len(issues)) as pool:
            for future in [pool.submit(pairs, i, PAIRS // len(issues)) for i in issues]:
                future.result()
    finally:
        for k in (1, 2):
            replicas("delay", str(k), "0")
    served = reads_served(api) - before
    assert not stale_with_token, f"{len(stale_with_token)} of {PAIRS} reads older than their write: " \
                                 f"{stale_with_token[:3]}"
    assert stale_without_token > 0, "the standbys were not behind: this test would prove nothing"
    on_standbys = served[standby(1)] + served[standby(2)]
    assert on_standbys > PAIRS // 2, f"token reads should mostly wait for a standby, not go to the primary: {served}"
    print(f"\n{PAIRS} write-then-read pairs in {time.time() - started:.1f} s, standbys {APPLY_DELAY_MS} ms behind: "
          f"0 stale with the token; {stale_without_token} of {without_token} stale without; "
          f"reads served {dict(served)}")


def test_a_lagging_standby_is_taken_out_and_a_stopped_one_costs_no_error(api):
    issue = new_issue(api).json["id"]
    replicas("delay", "1", "3s")
    stop = threading.Event()

    def writes():  # a lag in time needs commits to lag behind
        n = 0
        while not stop.is_set():
            assert api.patch(f"/issues/{issue}", {"title": f"lagging {n}"}).status == 200
            n += 1
            time.sleep(0.05)

    writer = threading.Thread(target=writes, daemon=True)
    writer.start()
    try:
        assert wait_for(lambda: serving(api, 1) == 0, 10), metrics(api)
        assert metrics(api)[("hotel_server_replica_lag_seconds", standby(1))] > 1
        before = reads_served(api)
        for _ in range(30):
            assert api.get(f"/issues/{issue}").status == 200
        served = reads_served(api) - before
        assert served[standby(1)] == 0 and served[standby(2)] >= 30, served

        # node2 gone as well: the primary serves, nobody sees an error.
        replicas("kill", "2")
        for _ in range(30):
            resp = api.get(f"/issues/{issue}")
            assert resp.status == 200, resp
        assert wait_for(lambda: serving(api, 2) == 0, 5)
        before = reads_served(api)
        for _ in range(10):
            assert api.get(f"/issues/{issue}").status == 200
        served = reads_served(api) - before
        assert served["primary"] >= 10 and served[standby(1)] + served[standby(2)] == 0, served
    finally:
        replicas("delay", "1", "0")
        replicas("start", "2")
        stop.set()
        writer.join()
    # Caught up and back: both serve again.
    assert wait_for(lambda: serving(api, 1) == 1 and serving(api, 2) == 1, 15), metrics(api)
