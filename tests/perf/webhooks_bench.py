"""Webhooks benchmark (not a test; prints figures): commit-to-receiver latency with 10 and 100
subscriptions at a fixed write rate, the catch-up rate of one subscription far behind against a
receiver answering in 5 ms, and POST /issues throughput with 100 active subscriptions against none.

    bash tests/perf/run.sh webhooks_bench.py [--rate 200] [--seconds 10] [--backlog 100000]

Latency: for every issue change a receiver gets, its arrival time minus the issue's created_at (the
start of the writing transaction, from the POST's answer), so it includes the write itself and is
an upper bound of commit-to-delivery. Receivers are Python threads on loopback (one server per 10
subscriptions); they verify nothing (the tests do), they only time."""
import argparse
import concurrent.futures
import datetime
import multiprocessing
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from stack import ROOT, Stack  # noqa: E402
from webhook_receiver import Receiver  # noqa: E402

ROOMS = ["101", "102", "103", "201", "202", "203"]


def arrivals(receiver):
    """(arrival time, change) of every change a receiver was sent."""
    with receiver.lock:
        return [(r["at"], c) for r in receiver.requests for c in r["json"].get("data", [])]


def count(receiver):
    with receiver.lock:
        return sum(len(r["json"].get("data", [])) for r in receiver.requests)


def post_issue(stack, i):
    resp = stack.post("/issues", {"property_id": "BER1", "room_number": ROOMS[i % len(ROOMS)], "title": f"bench #{i}",
                                  "category": "OTHER", "priority": "LOW", "reported_by": "bench"})
    assert resp.status == 201, resp
    return resp.json


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def subscribe(stack, url, **fields):
    resp = stack.post("/webhooks", {"url": url, **fields})
    assert resp.status == 201, resp
    return resp.json["id"]


def write_at_rate(stack, rate, seconds, created):
    """POSTs issues at `rate` per second for `seconds` (8 threads); records id -> created_at."""
    interval, start = 1.0 / rate, time.time()

    def worker(w):
        i = w
        while True:
            due = start + i * interval
            if due > start + seconds:
                return
            time.sleep(max(0.0, due - time.time()))
            issue = post_issue(stack, i)
            created[issue["id"]] = parse_time(issue["created_at"])
            i += 8

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def latency_run(stack, subscriptions, rate, seconds):
    receivers = [Receiver() for _ in range(max(1, subscriptions // 10))]
    hooks = [subscribe(stack, receivers[i % len(receivers)].url, resource_type=["ISSUE"]) for i in range(subscriptions)]
    created = {}
    write_at_rate(stack, rate, seconds, created)
    expected = len(created) * subscriptions
    deadline = time.time() + 60
    while sum(count(r) for r in receivers) < expected and time.time() < deadline:
        time.sleep(0.1)
    latencies = [(at - created[c["resource_id"]]) * 1000 for r in receivers for at, c in arrivals(r)
                 if c["resource_id"] in created]
    for h in hooks:
        stack.request("DELETE", f"/webhooks/{h}")
    for r in receivers:
        r.close()
    got = sum(count(r) for r in receivers)
    return percentile(latencies, 50), percentile(latencies, 99), got, expected


def catch_up_run(stack, backlog):
    start = stack.get("/issues?page_size=1").json["change_cursor"]
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: post_issue(stack, i), range(backlog)))
    written = time.time() - t0
    receiver = Receiver()
    receiver.delay = 0.005
    t0 = time.time()
    hook = subscribe(stack, receiver.url, resource_type=["ISSUE"], after=start)
    while count(receiver) < backlog and time.time() - t0 < 600:
        time.sleep(0.05)
    elapsed = time.time() - t0
    stack.request("DELETE", f"/webhooks/{hook}")
    receiver.close()
    return count(receiver), elapsed, written


def write_throughput(stack, seconds):
    count, stop = [0], time.time() + seconds
    lock = threading.Lock()

    def worker(w):
        i = w
        while time.time() < stop:
            post_issue(stack, i)
            i += 16
            with lock:
                count[0] += 1

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        list(pool.map(worker, range(16)))
    return count[0] / seconds


def serve_receivers(count, urls, stop):
    """In a child process: count receivers answering 204; their URLs go to the queue."""
    receivers = [Receiver() for _ in range(count)]
    for r in receivers:
        urls.put(r.url)
    stop.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=200, help="changes per second during the latency runs")
    parser.add_argument("--seconds", type=int, default=10, help="measurement time per row")
    parser.add_argument("--backlog", type=int, default=100000, help="changes behind for the catch-up run")
    args = parser.parse_args()

    _, cluster = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")), os.path.join(ROOT, ".local"))
    stack = Stack(cluster, "hotel_webhooks_perf")
    try:
        stack.create_database()
        stack.migrate()
        stack.start_server()
        stack.start_gateway()
        stack.wait_ready()
        print(f"{'run':<46} {'figure':>30}")
        for subs in (10, 100):
            p50, p99, got, expected = latency_run(stack, subs, args.rate, args.seconds)
            print(f"{f'latency, {subs} subscriptions x {args.rate}/s':<46} "
                  f"{f'p50 {p50:.0f} ms, p99 {p99:.0f} ms':>30}   ({got}/{expected} delivered)")
        delivered, elapsed, written = catch_up_run(stack, args.backlog)
        print(f"{f'catch-up, {args.backlog} behind, 5 ms receiver':<46} "
              f"{f'{delivered / elapsed:.0f} changes/s':>30}   ({delivered} in {elapsed:.1f} s; "
              f"written in {written:.1f} s)")
        without = write_throughput(stack, args.seconds)
        # The receivers run in a process of their own, so they do not share the writers' GIL.
        urls, stop = multiprocessing.Queue(), multiprocessing.Event()
        process = multiprocessing.Process(target=serve_receivers, args=(10, urls, stop))
        process.start()
        receiver_urls = [urls.get(timeout=10) for _ in range(10)]
        hooks = [subscribe(stack, receiver_urls[i % 10], resource_type=["ISSUE"]) for i in range(100)]
        with_subs = write_throughput(stack, args.seconds)
        for h in hooks:
            stack.request("DELETE", f"/webhooks/{h}")
        stop.set()
        process.join(timeout=10)
        print(f"{'POST /issues, no subscriptions':<46} {f'{without:.0f}/s':>30}")
        print(f"{'POST /issues, 100 subscriptions':<46} {f'{with_subs:.0f}/s':>30}   "
              f"({with_subs / without:.2f} of without)")
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
