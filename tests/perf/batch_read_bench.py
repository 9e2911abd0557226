"""Batch get and read mask benchmark (not a test): what consumers save with
`GET /rooms:batchGet` and `read_mask` (issue 33, 1.3.0).

    bash tests/perf/run.sh batch_read_bench.py [--rooms N] [--rounds R]

A fresh property of N rooms (hotel-admin import), a server and a gateway over loopback. Printed:

- Wall time of one batch get of 100 rooms against 100 single `GET /rooms/{number}` one after the
  other on one kept-alive connection (the best a client without batch get does; the single gets
  are answered from the server's room cache, warmed first). Median of R rounds each, and the
  ratio single / batch; beside it a list page of as many rooms, the ceiling for one read of 100.
- Bytes of `GET /rooms?page_size=500` with `read_mask=number,available` against without it, and
  the same for the batch get: the ratio is what the mask saves on the wire (and in the client's
  JSON parsing)."""
import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from stack import BIN, ROOT, Stack  # noqa: E402

PROPERTY = "BATCH1"


def property_file(rooms):
    lines = [f"property: {{id: {PROPERTY}, name: Batch House, time_zone: Europe/Paris, city: Paris, "
             "country_code: FR}", "room_types:",
             "  - {code: STD, name: Standard, category: STANDARD, amenities: [wifi, desk], size_sqm: 18, "
             "max_guests: 2, bed_type: QUEEN}", "rooms:"]
    for r in range(rooms):
        lines.append(f"  - {{number: \"{1000 + r}\", floor: {r // 25}, room_type: STD, extra_amenities: [balcony]}}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    _, cluster = start_cluster(int(os.environ.get("HOTEL_PG_PORT", "54329")),
                               os.environ.get("HOTEL_PG_DIR", os.path.join(ROOT, ".local")))
    stack = Stack(cluster, f"hotel_batch_read_bench_{os.getpid()}").start()
    try:
        env = dict(os.environ, DATABASE_URL=stack.db_url)
        env.pop("MIGRATION_DATABASE_URL", None)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(property_file(args.rooms))
            f.flush()
            out = subprocess.run([os.path.join(BIN, "hotel-admin"), "import", f.name], capture_output=True,
                                 text=True, env=env)
            assert out.returncode == 0, out.stderr

        host, port = stack.base.split("//")[1].split("/")[0].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)

        def get(path):
            conn.request("GET", "/api/v1" + path)
            resp = conn.getresponse()
            body = resp.read()
            assert resp.status == 200, (path, resp.status, body[:300])
            return body

        numbers = [str(1000 + r) for r in range(0, args.rooms, max(1, args.rooms // 100))][:100]
        batch_path = f"/rooms:batchGet?property_id={PROPERTY}&" + "&".join(f"numbers={n}" for n in numbers)

        def singles():
            for n in numbers:
                get(f"/rooms/{n}?property_id={PROPERTY}")

        def timed(action):
            t0 = time.perf_counter()
            action()
            return time.perf_counter() - t0

        singles()  # the room cache warm, as a busy service's is
        get(batch_path)
        single_s = statistics.median(timed(singles) for _ in range(args.rounds))
        batch_s = statistics.median(timed(lambda: get(batch_path)) for _ in range(args.rounds))
        print(f"{len(numbers)} rooms: 100 single GETs {single_s * 1000:.1f} ms, one batch get {batch_s * 1000:.2f} ms "
              f"(median of {args.rounds}); single / batch = {single_s / batch_s:.1f}x")
        page_path = f"/rooms?property_id={PROPERTY}&page_size={len(numbers)}"
        page_s = statistics.median(timed(lambda: get(page_path)) for _ in range(args.rounds))
        print(f"ceiling: a list page of {len(numbers)} rooms {page_s * 1000:.2f} ms; batch / page = {batch_s / page_s:.2f}")

        mask = "read_mask=number,available"
        list_path = f"/rooms?property_id={PROPERTY}&page_size=500"
        for name, path in (("list of 500", list_path), ("batch get of 100", batch_path)):
            full, masked = len(get(path)), len(get(f"{path}&{mask}"))
            print(f"{name}: {full} bytes, with {mask} {masked} bytes; masked / full = {masked / full:.3f} "
                  f"({full / masked:.1f}x smaller)")
        list_s = statistics.median(timed(lambda: get(list_path)) for _ in range(args.rounds))
        masked_s = statistics.median(timed(lambda: get(f"{list_path}&{mask}")) for _ in range(args.rounds))
        print(f"list of 500 wall time: full {list_s * 1000:.1f} ms, masked {masked_s * 1000:.1f} ms "
              f"(median of {args.rounds}); masked / full = {masked_s / list_s:.2f}")
        conn.close()
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
