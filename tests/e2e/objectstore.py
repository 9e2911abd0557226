"""moto's S3 server on a free loopback port: the real S3 API (not a mock of our client) that the
backup drill archives to and image uploads are stored in."""
import contextlib
import subprocess
import sys

from stack import free_port, wait_for


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
