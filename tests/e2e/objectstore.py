"""S3 servers on free loopback ports: moto's, the real S3 API (not a mock of our client) that the
backup drill archives to and image uploads are stored in, and MinIO, which also checks signatures."""
import contextlib
import os
import subprocess
import sys

from stack import ROOT, free_port, wait_for


@contextlib.contextmanager
def moto_server():
    """Yields the endpoint URL (http://127.0.0.1:<port>) of a moto server running meanwhile."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: subprocess.run(["curl", "-fs", "-o", "/dev/null", f"http://127.0.0.1:{port}/"])
                        .returncode == 0, 30), "moto's server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def minio_server(directory, access_key, secret_key):
    """Yields the endpoint URL of a MinIO server (scripts/minio.sh: built once, cached) storing in
    directory, whose root credentials are access_key and secret_key: unlike moto's server it checks
    every request's signature."""
    build = subprocess.run(["bash", os.path.join(ROOT, "scripts", "minio.sh"), "build"], capture_output=True,
                           text=True, timeout=2400)
    assert build.returncode == 0, build.stderr[-4000:]
    port, console = free_port(), free_port()
    env = dict(os.environ, MINIO_ROOT_USER=access_key, MINIO_ROOT_PASSWORD=secret_key, MINIO_BROWSER="off",
               MINIO_UPDATE="off", MINIO_CI_CD="1")
    proc = subprocess.Popen([build.stdout.strip(), "server", directory, "--address", f"127.0.0.1:{port}",
                             "--console-address", f"127.0.0.1:{console}", "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        ready = f"http://127.0.0.1:{port}/minio/health/ready"
        assert wait_for(lambda: subprocess.run(["curl", "-fs", "-o", "/dev/null", ready]).returncode == 0, 60), \
            "MinIO did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@contextlib.contextmanager
def environment(**values):
    """os.environ with values set meanwhile (what a stack started meanwhile inherits)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
