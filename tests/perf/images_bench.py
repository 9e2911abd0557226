"""Image benchmark (not a test), against the goals of issue 31, with a ceiling measured in the same run.

    bash tests/perf/run.sh images_bench.py [--images N] [--concurrency 1,2,8] [--big 8] [--ingest]

Uploads: 12-megapixel JPEGs (4000x3000, distinct, so every upload renders) over REST through the real
gateway into the real server (local object store, fresh database), with 1, 2 and 8 concurrent clients
that retry a 503 after its Retry-After as a client does. Per concurrency: uploads/s, p50/p99 latency of
an upload (its retries included), peak RSS of the server and of the gateway (VmHWM, reset before each
round through /proc/<pid>/clear_refs). The ceiling: libvips' own command line (`vips`, Debian's
libvips-tools, installed by scripts/install-deps.sh) making the same seven files from the same originals
with the same settings (original auto-rotated as JPEG Q85; large, medium and thumbnail as JPEG Q85 and
WebP Q80, metadata stripped) at the same concurrency: the ratio is the uploads' throughput over it.
Then --big concurrent uploads of ~40 MiB JPEGs (noise at quality 100): the gateway's and the server's
peak RSS. Then where a render's time goes: each step of the pipeline timed with `vips` on one original.

--ingest also runs the former rounds of `hotel-images ingest` (one process per image).

Goals (issue 31): throughput >= 0.8 x the libvips ceiling; server peak RSS at 8 concurrent uploads <=
1.5 x at 1; gateway peak RSS <= 40 MB at 8 concurrent 40 MiB uploads."""
import argparse
import concurrent.futures
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from conftest import start_cluster  # noqa: E402
from cpu import cpu_seconds  # noqa: E402
from stack import PG_DIR, PG_PORT, Stack  # noqa: E402

MAX_UPLOAD = 40 << 20
JPEG = "[Q=85,strip,optimize_coding]"
WEBP = "[Q=80,strip]"
# Variant boxes (server/src/images/image_model.cc): large and medium bound the width only.
VARIANTS = (("large", 1920, None), ("medium", 800, None), ("thumbnail", 200, 150))


def multipart(data, **fields):
    boundary = uuid.uuid4().hex
    body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                    for k, v in fields.items())
    body += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.jpg"\r\n'
             "Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def upload(stack, path, room_type="BER1-STD"):
    """Seconds one upload took (retries after 503 included) and how many refusals it met."""
    with open(path, "rb") as f:
        body, content_type = multipart(f.read(), alt_text="benchmark", request_id=str(uuid.uuid4()))
    started, shed = time.perf_counter(), 0
    while True:
        request = urllib.request.Request(f"{stack.base}/room-types/{room_type}/images", data=body, method="POST",
                                         headers={"Content-Type": content_type})
        try:
            with urllib.request.urlopen(request, timeout=300) as resp:
                assert resp.status == 201, resp.status
                return time.perf_counter() - started, shed
        except urllib.error.HTTPError as err:
            if err.code != 503:
                raise AssertionError(f"{err.code}: {err.read()[:300]!r}")
            shed += 1
            time.sleep(float(err.headers.get("Retry-After", "1")))
        except (urllib.error.URLError, ConnectionError) as err:
            # Refused before the body was read (the gateway answered 503 and closed while this
            # client, which reads no answer before it has sent everything, was still sending).
            assert isinstance(getattr(err, "reason", err), ConnectionError), err
            shed += 1
            time.sleep(1)


def reset_peak(pid):
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


def peak_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def vips(*args):
    subprocess.run(["vips", *args], check=True, capture_output=True)


def seven_files(path, out, step=lambda name, run: run()):
    """The seven files of an upload, made by libvips' command line from the original at path the
    way the server makes them: decoded once (auto-rotated, into the uncompressed .v format), each
    variant resized from the one before, each file encoded from those pixels. step(name, run)
    runs each step."""
    v = lambda name: os.path.join(out, name + ".v")  # noqa: E731
    step("decode + auto-rotate", lambda: vips("autorot", path, v("original")))
    step("encode original JPEG", lambda: vips("copy", v("original"), os.path.join(out, "original.jpg") + JPEG))
    width, height = (int(subprocess.run(["vipsheader", "-f", field, v("original")], check=True, capture_output=True,
                                        text=True).stdout) for field in ("width", "height"))
    source = "original"
    for name, box_w, box_h in VARIANTS:
        scale = min(1, box_w / width, box_h / height if box_h else 1)  # VariantSize
        size = (str(max(1, round(width * scale))), str(max(1, round(height * scale))))
        step(f"resize to {name}", lambda: vips("thumbnail_image", v(source), v(name), size[0], "--height", size[1],
                                               "--size", "force"))
        step(f"encode {name} JPEG", lambda: vips("copy", v(name), os.path.join(out, name + ".jpg") + JPEG))
        step(f"encode {name} WebP", lambda: vips("copy", v(name), os.path.join(out, name + ".webp") + WEBP))
        source = name


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ceiling(paths, workers):
    """Originals per second that libvips' command line turns into the seven files, workers at once,
    and its CPU seconds per original."""
    with tempfile.TemporaryDirectory() as scratch:
        def one(i_path):
            out = os.path.join(scratch, str(i_path[0]))
            os.mkdir(out)
            seven_files(i_path[1], out)
        started, cpu = time.perf_counter(), children_cpu()
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, enumerate(paths)))
        return len(paths) / (time.perf_counter() - started), (children_cpu() - cpu) / len(paths)


def make_originals(stack, folder, count, first_seed, width=4000, height=3000):
    paths = []
    for i in range(count):
        path = os.path.join(folder, f"p{first_seed + i}.jpg")
        made = stack.images("generate", f"--width={width}", f"--height={height}", f"--seed={first_seed + i}",
                            f"--out={path}")
        assert made.returncode == 0, made.stderr
        paths.append(path)
    return paths


def big_original(path):
    """A JPEG of noise just under 40 MiB (about 10 megapixels at quality 100)."""
    from PIL import Image
    width, height = 3600, 2750
    noise = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    noise.save(out, "JPEG", quality=100, subsampling=0)
    assert out.tell() <= MAX_UPLOAD - (64 << 10), out.tell()
    with open(path, "wb") as f:
        f.write(out.getvalue())
    return path


def uploads_round(stack, paths, workers):
    reset_peak(stack.server.pid)
    reset_peak(stack.gateway.pid)
    cpu = cpu_seconds(stack.server.pid) + cpu_seconds(stack.gateway.pid)
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda p: upload(stack, p), paths))
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(stack.server.pid) + cpu_seconds(stack.gateway.pid) - cpu
    latencies = [r[0] for r in results]
    return {"rate": len(paths) / elapsed, "p50": statistics.median(latencies), "p99": percentile(latencies, 0.99),
            "shed": sum(r[1] for r in results), "cpu": cpu / len(paths), "server_mb": peak_mb(stack.server.pid),
            "gateway_mb": peak_mb(stack.gateway.pid)}


def where_the_time_goes(path):
    """CPU seconds of each step of the server's pipeline (server/src/images/ingest/image_renderer.cc),
    made by `vips` on one original (seven_files), less a process's own start (a 1x1 copy's CPU)."""
    steps = []
    with tempfile.TemporaryDirectory() as d:
        vips("black", os.path.join(d, "dot.v"), "1", "1")
        cpu = children_cpu()
        for _ in range(5):
            vips("copy", os.path.join(d, "dot.v"), os.path.join(d, "dot2.v"))
        start = (children_cpu() - cpu) / 5

        def step(name, run):
            cpu = children_cpu()
            run()
            steps.append((name, max(0.0, children_cpu() - cpu - start)))

        seven_files(path, d, step)
    return steps


def ingest_rounds(stack, paths, parallel):
    """The former benchmark: `hotel-images ingest`, one process per image."""
    def ingest(path):
        t0 = time.perf_counter()
        out = stack.images("ingest", f"--file={path}", "--room-type=BER1-SUP", "--alt-text=benchmark")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["created"]
        return time.perf_counter() - t0, result["peak_rss_kb"]

    half = len(paths) // 2
    print(f"\n{'hotel-images ingest':28} {'images':>6} {'images/s':>9} {'median s':>9} {'peak RSS MB':>12}")
    for name, batch, workers in (("one at a time", paths[:half], 1),
                                 (f"{parallel} processes at once", paths[half:], parallel)):
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(ingest, batch))
        elapsed = time.perf_counter() - started
        print(f"{name:28} {len(batch):6d} {len(batch) / elapsed:9.2f} "
              f"{statistics.median(r[0] for r in results):9.2f} {max(r[1] for r in results) / 1024:12.0f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=8, help="uploads per concurrency (at least the concurrency)")
    parser.add_argument("--concurrency", default="1,2,8")
    parser.add_argument("--big", type=int, default=8, help="concurrent ~40 MiB uploads for the gateway's peak RSS")
    parser.add_argument("--ingest", action="store_true", help="also the hotel-images ingest rounds")
    args = parser.parse_args()
    assert shutil.which("vips"), "the vips command is missing: run scripts/install-deps.sh"
    levels = [int(c) for c in args.concurrency.split(",")]

    _, cluster = start_cluster(PG_PORT, PG_DIR)
    stack = Stack(cluster, f"hotel_images_bench_{os.getpid()}").start()
    seeded = stack.images("seed")
    assert seeded.returncode == 0, seeded.stderr
    try:
        with tempfile.TemporaryDirectory() as pictures:
            count = max(args.images, max(levels))
            rounds = {c: make_originals(stack, pictures, count, 1000 * (i + 1)) for i, c in enumerate(levels)}
            size_mb = statistics.mean(os.path.getsize(p) for ps in rounds.values() for p in ps) / 1e6
            print(f"originals: 4000x3000 JPEG, {size_mb:.2f} MB on average; {os.cpu_count()} CPUs; "
                  f"{count} uploads per round")
            # CPU per image (the server and the gateway; the vips processes) is what a shared machine
            # measures steadily; uploads/s and the ceiling's rate move with the other load on it.
            print(f"{'clients':>7} {'uploads/s':>9} {'ceiling/s':>9} {'ratio':>6} {'CPU s':>6} {'vips CPU s':>10} "
                  f"{'ratio':>6} {'p50 s':>6} {'p99 s':>6} {'503s':>5} {'server MB':>9} {'gateway MB':>10}")
            results = {}
            for c in levels:
                # The ceiling on other originals of the same kind (an upload's content is new to the server).
                r = uploads_round(stack, rounds[c], c)
                r["ceiling"], r["vips_cpu"] = ceiling(rounds[c], c)
                results[c] = r
                print(f"{c:7d} {r['rate']:9.2f} {r['ceiling']:9.2f} {r['rate'] / r['ceiling']:6.2f} {r['cpu']:6.2f} "
                      f"{r['vips_cpu']:10.2f} {r['vips_cpu'] / r['cpu']:6.2f} {r['p50']:6.2f} {r['p99']:6.2f} "
                      f"{r['shed']:5d} {r['server_mb']:9.0f} {r['gateway_mb']:10.0f}")

            big = [big_original(os.path.join(pictures, f"big{i}.jpg")) for i in range(args.big)]
            r = uploads_round(stack, big, args.big)
            print(f"{args.big} concurrent uploads of {statistics.mean(map(os.path.getsize, big)) / 2**20:.1f} MiB: "
                  f"{r['rate']:.2f}/s, p50 {r['p50']:.1f} s, {r['shed']} 503s; peak RSS server {r['server_mb']:.0f} MB, "
                  f"gateway {r['gateway_mb']:.0f} MB")

            print("\nwhere a render's time goes (CPU of each vips step on one 12-megapixel original, process start"
                  " subtracted):")
            steps = where_the_time_goes(rounds[levels[0]][0])
            total = sum(s for _, s in steps)
            for name, seconds in steps:
                print(f"  {name:24} {seconds * 1000:7.0f} ms {seconds / total:6.0%}")

            print("\ngoals (issue 31):")
            lowest, highest = min(levels), max(levels)
            for c in levels:
                ratio = results[c]["rate"] / results[c]["ceiling"]
                cpu_ratio = results[c]["vips_cpu"] / results[c]["cpu"]
                print(f"  throughput / libvips ceiling at {c} client(s): {ratio:.2f}, by CPU per image {cpu_ratio:.2f}"
                      " (goal >= 0.8)")
            print(f"  server peak RSS at {highest} / at {lowest}: "
                  f"{results[highest]['server_mb'] / results[lowest]['server_mb']:.2f} (goal <= 1.5)")
            print(f"  gateway peak RSS at {args.big} concurrent ~40 MiB uploads: {r['gateway_mb']:.0f} MB (goal <= 40)")
            if args.ingest:
                ingest_rounds(stack, make_originals(stack, pictures, 8, 500_000), 2)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
