"""Image ingestion benchmark (not a test): renders and registers 4000x3000 originals with the real
hotel-images command against a fresh database and prints throughput and peak memory.

    python3 tests/perf/images_bench.py [--images N] [--width W] [--height H] [--parallel P]

Each ingestion is one process, as an operator or a job would run it: decode, auto-rotate, four
variants, JPEG + WebP, content-addressed files on the origin, one transaction in PostgreSQL."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from stack import ROOT, Stack  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=12)
    parser.add_argument("--width", type=int, default=4000)
    parser.add_argument("--height", type=int, default=3000)
    parser.add_argument("--parallel", type=int, default=2, help="processes at once in the second round")
    args = parser.parse_args()

    port = os.environ.get("HOTEL_PG_PORT", "54329")
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), "start"], check=True, capture_output=True)
    stack = Stack(f"postgresql://hotel@127.0.0.1:{port}/postgres", "hotel_images_bench")
    stack.create_database()
    stack.migrate()
    with tempfile.TemporaryDirectory() as pictures:
        paths = []
        for i in range(args.images * 2):
            path = os.path.join(pictures, f"p{i}.jpg")
            made = stack.images("generate", f"--width={args.width}", f"--height={args.height}", f"--seed={i + 1}",
                                f"--out={path}")
            assert made.returncode == 0, made.stderr
            paths.append(path)
        size_mb = statistics.mean(os.path.getsize(p) for p in paths) / 1e6
        print(f"originals: {args.width}x{args.height} JPEG, {size_mb:.2f} MB on average; "
              f"{os.cpu_count()} CPUs")

        def ingest(path):
            t0 = time.perf_counter()
            out = stack.images("ingest", f"--file={path}", "--room_type=BER1-STD", "--alt_text=benchmark")
            assert out.returncode == 0, out.stderr
            result = json.loads(out.stdout)
            assert result["created"]
            return time.perf_counter() - t0, result["peak_rss_kb"]

        print(f"{'round':28} {'images':>6} {'images/s':>9} {'median s':>9} {'peak RSS MB':>12}")
        for name, batch, workers in (("one at a time", paths[:args.images], 1),
                                     (f"{args.parallel} processes at once", paths[args.images:], args.parallel)):
            started = time.perf_counter()
            with ThreadPoolExecutor(workers) as pool:
                results = list(pool.map(ingest, batch))
            elapsed = time.perf_counter() - started
            print(f"{name:28} {len(batch):6d} {len(batch) / elapsed:9.2f} "
                  f"{statistics.median(r[0] for r in results):9.2f} {max(r[1] for r in results) / 1024:12.0f}")
        t0 = time.perf_counter()
        again = stack.images("ingest", f"--file={paths[0]}", "--room_type=BER1-STD", "--alt_text=benchmark")
        assert again.returncode == 0, again.stderr
        print(f"re-ingesting a known file (no-op): {(time.perf_counter() - t0) * 1000:.0f} ms, "
              f"created={json.loads(again.stdout)['created']}")
    stack.stop()


if __name__ == "__main__":
    main()
