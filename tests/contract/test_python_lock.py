"""The tests' Python packages are locked (tests/python/requirements.txt: exact versions and hashes, installed by
scripts/install-deps.sh into .local/venv with Debian's python3): every third-party module a test file imports, or
runs with `python -m`, comes from a package in the lock, and the suite runs on that environment's Python."""
import ast
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOCK = os.path.join(ROOT, "tests", "python", "requirements.txt")
# Import names that differ from their distribution's name.
DISTRIBUTION_OF = {"PIL": "pillow", "yaml": "pyyaml", "websocket": "websocket-client", "grpc": "grpcio",
                   "kubernetes_validate": "kubernetes-validate", "prometheus_client": "prometheus-client",
                   "openapi_python_client": "openapi-python-client"}
# Generated into a test's temporary directory, not installed.
GENERATED = {"hotel_client"}


def locked_distributions():
    """The lock's distributions; each is pinned to one version and carries its hashes."""
    with open(LOCK) as f:
        entries = re.split(r"\n(?=[A-Za-z0-9])", f.read())
    locked = set()
    for entry in entries:
        pin = re.match(r"([A-Za-z0-9_.\-]+)==\S+", entry)
        if not pin:
            continue
        assert "--hash=sha256:" in entry, f"{pin.group(1)} has no hash"
        locked.add(pin.group(1).lower().replace("_", "-"))
    assert locked, "no pins in the lock"
    return locked


def local_modules():
    names = set()
    for directory, _, files in os.walk(os.path.join(ROOT, "tests")):
        names.update(f[:-3] for f in files if f.endswith(".py"))
    return names


def third_party_imports():
    local = local_modules() | GENERATED
    found = {}
    for directory, dirs, files in os.walk(os.path.join(ROOT, "tests")):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "gen", "__pycache__")]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            with open(path) as f:
                source = f.read()
            tree = ast.parse(source, path)
            modules = set(re.findall(r'"-m",\s*"([a-z_]+)', source))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules.add(node.module.split(".")[0])
            for module in modules - set(sys.stdlib_module_names) - local:
                found.setdefault(module, os.path.relpath(path, ROOT))
    return found


def test_every_imported_package_is_locked_with_hashes():
    locked = locked_distributions()
    imports = third_party_imports()
    assert {"pytest", "boto3", "grpc", "PIL"} <= set(imports), imports
    missing = {module: path for module, path in imports.items()
               if DISTRIBUTION_OF.get(module, module).lower().replace("_", "-") not in locked}
    assert not missing, f"imported but not in {os.path.relpath(LOCK, ROOT)}: {missing}"


def test_the_suite_runs_on_the_project_environment():
    assert os.path.realpath(sys.prefix) == os.path.realpath(os.path.join(ROOT, ".local", "venv")), sys.prefix
    with open(os.path.join(ROOT, ".local", "venv", "pyvenv.cfg")) as f:
        assert re.search(r"^home = /usr/bin$", f.read(), re.M), "the environment is not made from Debian's python3"
