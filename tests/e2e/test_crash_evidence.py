"""Every crash leaves its evidence (issue 60): a server that dies of a fault writes a symbolised backtrace to
its stderr and dies of the signal, and the run in which that happens fails, printing it (crashes.py)."""
import os
import re
import signal

import pytest

import crashes
from conftest import local_stack


def test_a_server_killed_with_sigsegv_fails_the_run_with_its_backtrace():
    stack = local_stack("hotel_crash")
    try:
        os.kill(stack.server.pid, signal.SIGSEGV)
        assert stack.server.wait(timeout=30) == -signal.SIGSEGV  # it still dies of the signal
        # What the check after every test (conftest.py, no_crash) does: here it fails this test's stand-in.
        with pytest.raises(pytest.fail.Exception) as failed:
            crashes.fail_on_crashes()
    finally:
        stack.stop()
    report = str(failed.value)
    assert f"hotel-server (pid {stack.server.pid}) died of SIGSEGV" in report
    assert "*** SIGSEGV received" in report
    # The frame it died in, named by the symbolizer: "PC: @ <address> <frame size> <function>".
    assert re.search(r"^PC: @\s+0x[0-9a-f]+\s.*\s[A-Za-z_][\w:]*$", report, re.M), report
