"""The trace backend of the tests and benchmarks: an OpenTelemetry Collector built from the Go module proxy at pinned
versions (scripts/trace-backend.sh) with an OTLP/HTTP receiver and the file exporter, whose OTLP/JSON lines are read
back here."""
import json
import os
import subprocess

from stack import ROOT, free_port, wait_for


class Collector:
    """The trace backend on a fixed port; each start writes the spans it receives to a file of its own."""

    def __init__(self, directory):
        build = subprocess.run(["bash", os.path.join(ROOT, "scripts", "trace-backend.sh"), "build"],
                               capture_output=True, text=True, timeout=1200)
        assert build.returncode == 0, build.stderr[-4000:]
        self.binary = build.stdout.strip()
        self.directory = directory
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.runs = 0

    def start(self):
        self.runs += 1
        self.path = os.path.join(self.directory, f"spans-{self.runs}.jsonl")
        config = os.path.join(self.directory, f"collector-{self.runs}.yaml")
        with open(config, "w") as f:
            f.write(f"""
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:{self.port}
exporters:
  file:
    path: {self.path}
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
""")
        self.log = os.path.join(self.directory, f"collector-{self.runs}.log")
        self.process = subprocess.Popen([self.binary, "--config", config], stdout=subprocess.DEVNULL,
                                        stderr=open(self.log, "w"))
        assert wait_for(lambda: "Everything is ready" in open(self.log).read() or self.process.poll() is not None,
                        60), open(self.log).read()
        assert self.process.poll() is None, open(self.log).read()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)

    def spans(self):
        """Every span received so far, each with its service's name under "service"."""
        if not os.path.exists(self.path):
            return []
        out = []
        with open(self.path) as f:
            for line in f:
                try:
                    batch = json.loads(line)
                except ValueError:
                    continue  # the line being written now
                for resource_spans in batch.get("resourceSpans", []):
                    service = attributes(resource_spans.get("resource", {})).get("service.name")
                    for scope_spans in resource_spans.get("scopeSpans", []):
                        for span in scope_spans.get("spans", []):
                            out.append(dict(span, service=service))
        return out

    def trace(self, trace_id, predicate, timeout=20):
        """The spans of trace_id once predicate accepts them."""
        found = []

        def complete():
            found[:] = [s for s in self.spans() if s["traceId"] == trace_id]
            return predicate(found)

        assert wait_for(complete, timeout), json.dumps(found, indent=1)[:6000]
        return found


def attributes(item):
    out = {}
    for kv in item.get("attributes", []):
        value = kv.get("value", {})
        out[kv["key"]] = next(iter(value.values()), None)
    return out
