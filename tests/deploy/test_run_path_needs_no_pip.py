"""The README's first command, scripts/up.sh, needs no pip and no PyPI: a stock Debian python3 has no
pip, and the run path must work there. A static check (nothing is run): it reads scripts/up.sh and every
script it runs, transitively, as far as the `run` profile goes (install-deps.sh up to the line where
the `test` profile goes on: the tests' virtual environment legitimately uses pip), plus every CMake file
(configure and custom commands run by scripts/build.sh) and the scripts they run, and fails naming the
file and line of any call of pip or address of PyPI. What it cannot see: a tool that fetches from PyPI
by itself without saying so in these files. It errs towards reading too much: a script named on any
line that is not a comment counts as run. Also, the Python lock names no local path."""
import os
import re

from test_manifests import ROOT

START = "scripts/up.sh"
# Where the `run` profile of a script on the path ends: what follows is for the tests only.
RUN_PATH_ENDS = {"scripts/install-deps.sh": '[ "$profile" = test ] || exit 0'}
RUNS_SCRIPT = re.compile(r"scripts/([\w.-]+\.(?:sh|py))")
PIP_OR_PYPI = re.compile(r"(^|[\s;&|(`\"'/])pip3?(\s|$)|-m\s+pip\b|ensurepip|pypi\.org|pythonhosted\.org", re.I)


def code_lines(root, path):
    """(number, line) of a file's lines that are not comments, up to where its run profile ends."""
    with open(os.path.join(root, path)) as f:
        lines = f.read().splitlines()
    end = RUN_PATH_ENDS.get(path)
    if end is not None:
        assert end in lines, f"{path}: the line where the run profile ends ({end}) is gone; update RUN_PATH_ENDS"
        lines = lines[:lines.index(end)]
    return [(n, line) for n, line in enumerate(lines, 1) if not line.lstrip().startswith("#")]


def cmake_files(root):
    skip = {"build", "build-asan", "build-tsan", ".local", ".git", "node_modules", "gen"}
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if d not in skip and not d.startswith("build")]
        found += [os.path.relpath(os.path.join(directory, f), root) for f in files
                  if f == "CMakeLists.txt" or f.endswith(".cmake")]
    return sorted(found)


def run_path(root):
    """Every file scripts/up.sh's path reads: the scripts it runs, transitively, and the CMake files."""
    todo, seen = [START] + cmake_files(root), []
    while todo:
        path = todo.pop(0)
        if path in seen or not os.path.exists(os.path.join(root, path)):
            continue
        seen.append(path)
        for _, line in code_lines(root, path):
            todo += ["scripts/" + name for name in RUNS_SCRIPT.findall(line)]
    return seen


def pip_calls(root):
    return [f"{path}:{n}: {line.strip()}" for path in run_path(root)
            for n, line in code_lines(root, path) if PIP_OR_PYPI.search(line)]


def test_the_walk_follows_up_sh_through_the_scripts_it_runs():
    path = run_path(ROOT)
    for script in ("scripts/install-deps.sh", "scripts/go-toolchain.sh", "scripts/build.sh",
                   "scripts/build-gateway.sh", "scripts/postgres.sh", "scripts/down.sh", "CMakeLists.txt"):
        assert script in path, script
    assert "scripts/test.sh" not in path


def test_nothing_on_up_sh_path_calls_pip_or_reaches_pypi():
    calls = pip_calls(ROOT)
    assert not calls, "scripts/up.sh must work without pip or PyPI:\n" + "\n".join(calls)


def test_the_check_sees_a_pip_call():
    assert PIP_OR_PYPI.search('"$venv/bin/python" -m pip install -r x')
    assert PIP_OR_PYPI.search("  pip install grpcio")
    assert PIP_OR_PYPI.search("curl -fsSL https://pypi.org/simple/grpcio/")
    assert not PIP_OR_PYPI.search("set -euo pipefail; a | pipe")


def test_the_python_lock_names_no_local_path():
    """Package pins with their hashes, from PyPI: no --find-links, index or file of the machine that made it."""
    with open(os.path.join(ROOT, "tests", "python", "requirements.txt")) as f:
        lines = [line.strip() for line in f if not line.lstrip().startswith(("#", "--hash"))]
    local = [line for line in lines if line.startswith("-") or "file:" in line or re.search(r"@\s*[./~]", line)]
    assert not local, f"tests/python/requirements.txt names where to find packages: {local}"
