"""OpenAPI Generator (the Java tool from Maven Central, pinned in scripts/install-deps.sh) for the
tests: clients generated from a document are kept in build/openapi-generator/<digest of the
document>/, so each document is generated once however many tests (and runs) use it."""
import datetime
import hashlib
import inspect
import json
import os
import re
import subprocess
import sys
import types

from conftest import local_stack
from stack import ROOT

CACHE = os.path.join(ROOT, "build", "openapi-generator")
# Generated code only: no tests, docs or CI files.
LEAN = ["--global-property", "apiTests=false,modelTests=false,apiDocs=false,modelDocs=false"]


def jar():
    """The pinned jar that scripts/install-deps.sh downloads into the user's cache."""
    version = re.search(r"^openapi_generator_version=(\S+)$",
                        open(os.path.join(ROOT, "scripts", "install-deps.sh")).read(), re.M).group(1)
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    path = os.path.join(cache, "hotel", f"openapi-generator-cli-{version}.jar")
    assert os.path.exists(path), f"{path} is missing: run scripts/install-deps.sh"
    return path


def _generate(document, generator, args):
    with open(document, "rb") as f:
        digest = hashlib.sha256(f.read() + " ".join(args).encode()).hexdigest()[:16]
    out = os.path.join(CACHE, f"{generator}-{digest}")
    if not os.path.exists(os.path.join(out, ".done")):
        subprocess.run(["rm", "-rf", out], check=True)
        result = subprocess.run(["java", "-jar", jar(), "generate", "-g", generator, "-i", document, "-o", out,
                                 *LEAN, *args], capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        open(os.path.join(out, ".done"), "w").close()
    return out


def python_client(document, package):
    """OpenAPI Generator's `python` client of document, imported as the module `package`."""
    out = _generate(document, "python", ["--package-name", package])
    if out not in sys.path:
        sys.path.insert(0, out)
    return __import__(package)


def operation(module, client, operation_id, variant=""):
    """The generated method of operation_id, whatever API class (tag) holds it; variant
    "_with_http_info" or "_without_preload_content" for those methods."""
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", operation_id).lower() + variant
    for attr in dir(module.api):
        cls = getattr(module.api, attr)
        if isinstance(cls, type) and hasattr(cls, name):
            return getattr(cls(client), name)
    raise AssertionError(f"no generated method for {operation_id}")


JAVA_OPTIONS = ["--library", "native", "--additional-properties",
                "invokerPackage=hotel.client,apiPackage=hotel.client.api,modelPackage=hotel.client.model,"
                "groupId=hotel,artifactId=hotel-client"]


def java_client(document):
    """OpenAPI Generator's `java` client (library native: java.net.http) of document, compiled:
    returns the class path holding it and its dependencies (resolved by the generated pom.xml
    with Maven, from Maven Central on first use, then from ~/.m2)."""
    out = _generate(document, "java", JAVA_OPTIONS)
    classes = os.path.join(out, "classes-with-parameter-names")
    deps = os.path.join(out, "classpath.txt")
    if not os.path.exists(os.path.join(classes, ".done")):
        result = subprocess.run(["mvn", "-q", "-B", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
                                 f"-Dmdep.outputFile={deps}"], cwd=out, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        sources = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(out, "src", "main", "java"))
                   for f in files if f.endswith(".java")]
        # -parameters: Calls.java binds arguments to the generated methods' parameters by name.
        result = subprocess.run(["javac", "-nowarn", "-parameters", "-encoding", "UTF-8", "-d", classes, "-cp",
                                 open(deps).read(), *sources], capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        open(os.path.join(classes, ".done"), "w").close()
    return classes + os.pathsep + open(deps).read().strip()


class ApiError(Exception):
    """A call the generated Java client refused (its ApiException): the HTTP status and body."""

    def __init__(self, status, body):
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


class PythonCalls:
    """Operations called through OpenAPI Generator's Python client, by operationId."""

    name = "openapi-generator python"

    def __init__(self, module, root):
        self.module = module
        self.models = module.models
        self.client = module.ApiClient(module.Configuration(host=root))
        self.ApiError = module.ApiException
        self.sent = {}  # id(answer) -> (answer, the JSON the server sent)

    def call(self, op_id, *args, **kw):
        return self.info(op_id, *args, **kw)[1]

    def info(self, op_id, *args, **kw):
        """(headers, answer) of a call."""
        info = operation(self.module, self.client, op_id, "_with_http_info")(*args, **kw)
        self.sent[id(info.data)] = (info.data, info.raw_data)
        return info.headers, info.data

    @staticmethod
    def header(headers, name):
        return headers.get(name)  # this client's header map is case-sensitive: the name as declared

    def watch(self, after, count):
        """count events from the change stream, each line read as the declared item schema."""
        response = operation(self.module, self.client, "ChangeService_WatchChanges",
                             "_without_preload_content")(after=after)
        events = []
        for line in response:  # one JSON object per line
            item = self.models.WatchChangesResponseStreamLine.from_json(line)
            if item.result and item.result.change:
                events.append(item.result.change)
            if len(events) == count:
                break
        response.release_conn()
        return events

    @staticmethod
    def type_name(answer):
        return type(answer).__name__

    def tree(self, answer):
        """An answer as JSON: as the server sent it, or (a decoded one) as this client writes it."""
        if id(answer) in self.sent and self.sent[id(answer)][0] is answer:
            return json.loads(self.sent[id(answer)][1])
        return json.loads(json.dumps(answer.to_dict(), default=_json_value))

    def decode(self, schema, tree):
        """tree (an answer's JSON) read into this client's model named schema."""
        return getattr(self.models, schema).from_dict(tree)


class JavaCalls:
    """Operations called through OpenAPI Generator's Java client (tests/clients/openapi-generator/
    Calls.java, one operation per line). The calls are written as for the Python client of the same
    document: its method signatures name positional arguments, and request models travel as their
    JSON, which the Java client's ObjectMapper reads into its own models."""

    name = "openapi-generator java"
    ApiError = ApiError

    def __init__(self, classpath, root, python):
        self.python = python
        self.models = python.models
        self.process = subprocess.Popen(["java", "-cp", classpath, "Calls", root], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def close(self):
        self.process.stdin.close()
        self.process.wait(30)

    def _send(self, request):
        self.process.stdin.write(json.dumps(request, default=_json_value) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the Java client exited ({self.process.poll()})"
        answer = json.loads(line)
        assert "exception" not in answer, answer["exception"]
        if "error" in answer:
            raise ApiError(answer["status"], answer["error"])
        return answer

    def _answer(self, answer, data):
        value = json.loads(json.dumps(data), object_hook=lambda d: types.SimpleNamespace(**d))
        if isinstance(value, types.SimpleNamespace):
            value._type = answer["type"]
        return value

    def _named(self, op_id, args, kw):
        """The Java parameter names of a call written for the Python client: from → from
        (var_from there), if_none_match → ifNoneMatch, create_issue_request → createIssueRequest."""
        signature = inspect.signature(operation(self.python.module, self.python.client, op_id))
        named = dict(zip(signature.parameters, args), **kw)

        def java(name):
            head, *rest = re.sub(r"^var_", "", name).split("_")
            return head + "".join(w.capitalize() for w in rest)

        return {java(k): (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in named.items()}

    def call(self, op_id, *args, **kw):
        return self.info(op_id, *args, **kw)[1]

    def info(self, op_id, *args, **kw):
        answer = self._send({"op": op_id, "args": self._named(op_id, args, kw)})
        return answer["headers"], self._answer(answer, answer["data"])

    @staticmethod
    def header(headers, name):
        # java.net.http's HttpHeaders are case-insensitive, as HTTP is.
        return next((v for k, v in headers.items() if k.lower() == name.lower()), None)

    def decode(self, schema, tree):
        """tree (an answer's JSON) read into the Java model named schema, and written back."""
        answer = self._send({"op": "decode", "type": schema, "json": tree})
        return self._answer(answer, answer["data"])

    def watch(self, after, count):
        answer = self._send({"op": "watch", "after": after, "count": count})
        return [self._answer(answer, e) for e in answer["events"]]

    @staticmethod
    def type_name(answer):
        return answer._type

    @staticmethod
    def tree(answer):
        return json.loads(json.dumps(answer, default=lambda o: {k: v for k, v in vars(o).items() if k != "_type"}))


def _json_value(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def seeded_stack(name, server_args=()):
    """A server (with server_args) and a gateway over a fresh database seeded with the sample
    properties and images, in the project-local cluster; stop() it when done."""
    s = local_stack(name, server_args)
    seeded = s.images("seed")
    assert seeded.returncode == 0, seeded.stderr
    return s
