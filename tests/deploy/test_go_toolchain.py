"""On a machine whose PATH has no Go, or too old a Go, the scripts install the version of gateway/go.mod
(scripts/go-toolchain.sh, called by install-deps.sh) and use it; a new enough Go on the PATH is left as it is.
The install goes to a temporary directory here, so the machine's own Go and .local/go are never touched."""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WANTED = re.search(r"^go (\S+)$", open(os.path.join(ROOT, "gateway", "go.mod")).read(), re.M).group(1)


def path_without_go():
    """The PATH with every directory holding a `go` left out, as on a machine without Go."""
    return os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if not os.access(os.path.join(d, "go"), os.X_OK))


def run_with_toolchain(script, path, **env):
    return subprocess.run(["bash", "-c", f'. "{ROOT}/scripts/go-toolchain.sh" && {script}'],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PATH=path, **env))


def test_without_go_on_the_path_the_pinned_go_is_installed_and_used(tmp_path):
    go_dir = tmp_path / "go"
    path = path_without_go()
    assert subprocess.run(["bash", "-c", "command -v go"], env=dict(os.environ, PATH=path)).returncode != 0
    result = run_with_toolchain('! use_go && install_go "$go_dir" && use_go && command -v go && go version',
                                path, HOTEL_GO_DIR=str(go_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{go_dir}/bin/go" in result.stdout
    assert f"go version go{WANTED} " in result.stdout
    # The installed toolchain builds (its compiler and linker came out of the zip executable).
    program = tmp_path / "hello"
    program.mkdir()
    (program / "go.mod").write_text("module hello\n\ngo 1.24\n")
    (program / "main.go").write_text('package main\n\nfunc main() { println("hello") }\n')
    built = run_with_toolchain(f'use_go && cd "{program}" && go build -o hello . && ./hello', path,
                               HOTEL_GO_DIR=str(go_dir), GOTOOLCHAIN="local")
    assert built.returncode == 0 and "hello" in built.stderr, built.stdout + built.stderr


def test_an_older_go_on_the_path_is_passed_over_and_left_alone(tmp_path):
    old = tmp_path / "old-go" / "bin"
    old.mkdir(parents=True)
    (old / "go").write_text('#!/bin/sh\n[ "$1 $2" = "env GOVERSION" ] && echo go1.19.8 && exit 0\necho "go version go1.19.8 linux/amd64"\n')
    (old / "go").chmod(0o755)
    result = run_with_toolchain("use_go; echo status=$?; command -v go", f"{old}{os.pathsep}{path_without_go()}",
                                HOTEL_GO_DIR=str(tmp_path / "not-installed"))
    assert "status=1" in result.stdout  # too old, and nothing installed yet: install_go is next
    assert result.stdout.strip().endswith(f"{old}/go")
    assert (old / "go").read_text().startswith("#!/bin/sh")


def test_a_new_enough_go_on_the_path_is_used_as_it_is():
    machine_go = subprocess.run(["bash", "-c", "command -v go"], capture_output=True, text=True).stdout.strip()
    result = run_with_toolchain("use_go && command -v go", os.environ["PATH"],
                                HOTEL_GO_DIR="/nonexistent")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == machine_go
