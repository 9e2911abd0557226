"""Every crash leaves its evidence (issue 60): each hotel-server and hotel-gateway a test stack starts is
watched, and one that died of a signal fails the run with what it wrote to stderr, whichever test it
happened in. The server writes a symbolised backtrace there before it dies of the signal (Abseil's failure
signal handler, server/src/common/crash_report.h); the gateway is Go, which prints its own on a panic."""
import re
import signal

import pytest

# Signals only a fault sends: a test's own SIGKILL or SIGTERM of a process is no crash.
CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGTRAP,
                 signal.SIGSYS}
# Go's own report of a crash, at the start of a line of the gateway's stderr.
GO_CRASH = re.compile(r"^(panic: |fatal error: |\[signal SIG|SIGSEGV)", re.M)

_watched = []  # [name, process, log path], each reported once


def watch(name, proc, log_path):
    """Watches proc (started by a test stack, its stderr in log_path) for a crash."""
    _watched.append([name, proc, log_path])


def _tail(log_path, limit=200):
    with open(log_path, errors="replace") as log:
        return "".join(log.readlines()[-limit:])


def crash_report(name, proc, log_path):
    """How proc died, with the end of its stderr, if it crashed; else None."""
    code = proc.poll()
    if code is not None and code < 0 and -code in CRASH_SIGNALS:
        cause = f"died of {signal.Signals(-code).name}"
    elif name == "hotel-gateway" and code is not None and code != 0 and GO_CRASH.search(_tail(log_path)):
        cause = f"exited with {code} after a Go panic"
    else:
        return None
    return f"{name} (pid {proc.pid}) {cause}; the end of its stderr ({log_path}):\n{_tail(log_path)}"


def take_crashes():
    """Reports of the watched processes that crashed since the last call (each process once)."""
    reports = []
    for entry in list(_watched):
        report = crash_report(*entry)
        if report is not None:
            reports.append(report)
        if report is not None or entry[1].poll() is not None:
            _watched.remove(entry)
    return reports


def fail_on_crashes():
    """Fails the running test (or teardown) with the report of every watched process that crashed."""
    reports = take_crashes()
    if reports:
        pytest.fail("a test stack's process crashed:\n\n" + "\n\n".join(reports), pytrace=False)
