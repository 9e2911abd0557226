"""The one log shape of both processes (docs/operations.md, "Logs"), checked line by line."""
import json
import re

HEX32, HEX16 = re.compile(r"^[0-9a-f]{32}$"), re.compile(r"^[0-9a-f]{16}$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
SEVERITIES = {"DEBUG": 5, "INFO": 9, "WARN": 13, "ERROR": 17}
# Attributes that are numbers wherever they appear.
NUMBERS = {"duration_ms", "http.response.status_code", "rpc.grpc.status_code", "severity_number"}
# The names of the shapes before issue 27: none may come back.
OLD_NAMES = {"ts", "time", "level", "msg", "method", "code", "status", "route"}


def check_shape(line, service):
    """Every line of either process: the OpenTelemetry-named fields, flat, typed."""
    assert set(line) & OLD_NAMES == set(), line
    assert TIMESTAMP.match(line["timestamp"]), line
    assert SEVERITIES[line["severity_text"]] == line["severity_number"], line
    assert isinstance(line["body"], str) and line["body"], line
    assert line["service.name"] == service, line
    if "trace_id" in line or "span_id" in line:
        assert HEX32.match(line["trace_id"]) and line["trace_id"] != "0" * 32, line
        assert HEX16.match(line["span_id"]) and line["span_id"] != "0" * 16, line
        # The gateway always has a request id; a gRPC caller may send none (x-request-id).
        assert isinstance(line.get("request_id"), str) or service == "hotel-server", line
    assert isinstance(line.get("request_id", ""), str), line
    for key, value in line.items():
        assert not isinstance(value, (dict, list)), line  # flat
        if key in NUMBERS:
            assert isinstance(value, (int, float)) and not isinstance(value, bool), line


def check_log(path, service):
    """Checks every line of a process's log; returns the set of its bodies."""
    bodies = set()
    with open(path) as f:
        for number, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except ValueError:
                raise AssertionError(f"{path}:{number}: not JSON: {text!r}") from None
            check_shape(line, service)
            bodies.add(line["body"])
    return bodies
