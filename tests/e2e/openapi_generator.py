"""OpenAPI Generator (the Java tool from Maven Central, pinned in scripts/install-deps.sh) for the
tests: clients generated from a document are kept in build/openapi-generator/<digest of the
document>/, so each document is generated once however many tests (and runs) use it."""
import hashlib
import os
import re
import subprocess
import sys

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
    classes = os.path.join(out, "classes")
    deps = os.path.join(out, "classpath.txt")
    if not os.path.exists(os.path.join(classes, ".done")):
        result = subprocess.run(["mvn", "-q", "-B", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
                                 f"-Dmdep.outputFile={deps}"], cwd=out, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        sources = [os.path.join(d, f) for d, _, files in os.walk(os.path.join(out, "src", "main", "java"))
                   for f in files if f.endswith(".java")]
        result = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", classes, "-cp", open(deps).read(),
                                 *sources], capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        open(os.path.join(classes, ".done"), "w").close()
    return classes + os.pathsep + open(deps).read().strip()


def seeded_stack(name, server_args=()):
    """A server (with server_args) and a gateway over a fresh database seeded with the sample
    properties and images, in the project-local cluster; stop() it when done."""
    s = local_stack(name, server_args)
    seeded = s.images("seed")
    assert seeded.returncode == 0, seeded.stderr
    return s
