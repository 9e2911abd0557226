#!/usr/bin/env bash
# Installs what the project needs on Debian bookworm, idempotently (apt runs only when a package is missing):
#   scripts/install-deps.sh run    what building and running the server and gateway need (scripts/up.sh):
#                                  compilers, gRPC/protobuf/abseil/libpqxx, libvips, yaml-cpp, libcurl and OpenSSL
#                                  (webhook deliveries), PostgreSQL, Go (the version of gateway/go.mod, into
#                                  .local/go/ when the PATH has none or an older one: scripts/go-toolchain.sh)
#   scripts/install-deps.sh test   that, and what the tests need (scripts/test.sh): GoogleTest, clang-format 14,
#                                  promtool, the barman cloud tools, Chromium, libvips' command line, Java 17 and
#                                  Maven with OpenAPI Generator, Node.js and the TypeScript client's npm packages,
#                                  and the Python test packages in the project's virtual environment .local/venv
#                                  (Debian's python3 -m venv; exact versions and hashes: tests/python/requirements.txt)
# It prints how long apt's downloads and installs took, apart from its own work.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
profile=${1:-test}
case "$profile" in run | test) ;; *) echo "usage: scripts/install-deps.sh [run|test]" >&2; exit 2 ;; esac
sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)

run_packages=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates unzip openssl
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libpqxx-dev libvips-dev postgresql postgresql-contrib libyaml-cpp-dev libcurl4-openssl-dev libssl-dev acl
)
# clang-format-14: bookworm's only version, so the formatting does not drift. python3-venv: the tests' Python
# environment is made with Debian's own python3 (PEP 668 refuses pip on the system Python).
test_packages=(
  libgtest-dev clang-format-14 python3 python3-venv openjdk-17-jdk-headless maven
)
# Pinned to bookworm's versions, any Debian revision (security updates replace the exact version on the mirrors):
# promtool comes with prometheus 2.42 (its service is not started); barman-cli-cloud 3.4 (CloudNativePG runs the same
# tools); chromium drives the API reference page's test; libvips-tools is the `vips` command, the ceiling of the image
# upload benchmark (the libvips the server links).
test_pinned=(
  "prometheus=2.42.0+ds-5*" "barman-cli-cloud=3.4.0-1*" "chromium=*~deb12u1" "libvips-tools=8.14.1-3*"
)

missing=()
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
wanted=("${run_packages[@]}")
[ "$profile" = run ] || wanted+=("${test_packages[@]}" "${test_pinned[@]}")
for p in "${wanted[@]}"; do installed "${p%%=*}" || missing+=("$p"); done
# Node.js and npm from Debian only when the machine has none of its own.
[ "$profile" = run ] || command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  start=$SECONDS
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "${missing[@]}"
  echo "install-deps.sh: apt (download and install) took $((SECONDS - start)) s"
fi

. "$root/scripts/go-toolchain.sh"
if ! use_go; then
  start=$SECONDS
  install_go "$go_dir" && use_go
  echo "install-deps.sh: Go $go_wanted from the Go module proxy took $((SECONDS - start)) s"
fi
[ "$profile" = test ] || exit 0

# The tests' Python: a virtual environment of Debian's /usr/bin/python3, whatever python3 comes first on the PATH,
# with every package from the lock (exact versions, hashes checked). Reinstalled when the lock changes.
venv=$root/.local/venv
lock=$root/tests/python/requirements.txt
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
if ! cmp -s "$lock" "$venv/requirements.installed"; then
  start=$SECONDS
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$lock"
  cp "$lock" "$venv/requirements.installed"
  echo "install-deps.sh: the Python test packages (PyPI) took $((SECONDS - start)) s"
fi

# The TypeScript client generator and compiler (openapi-typescript, openapi-fetch, typescript), pinned by
# tests/clients/typescript/package-lock.json.
ts=$root/tests/clients/typescript
if [ ! -f "$ts/node_modules/.package-lock.json" ] || [ "$ts/package-lock.json" -nt "$ts/node_modules/.package-lock.json" ]; then
  (cd "$ts" && npm ci --no-audit --no-fund --loglevel=error)
fi
# OpenAPI Generator (the Java tool from Maven Central), pinned by version and checksum, downloaded once into
# the user's cache and reused by every run (tests/e2e/test_openapi_generator.py finds it there).
openapi_generator_version=7.17.0
openapi_generator_sha256=25d6bd8273dd2be99979d544b62ea43f0ce1975f1aa582678b5093d1e7fcfce8
openapi_generator_jar=${XDG_CACHE_HOME:-$HOME/.cache}/hotel/openapi-generator-cli-$openapi_generator_version.jar
if ! echo "$openapi_generator_sha256  $openapi_generator_jar" | sha256sum --check --status 2>/dev/null; then
  mkdir -p "$(dirname "$openapi_generator_jar")"
  curl -fsSL --retry 3 -o "$openapi_generator_jar.part" \
    "https://repo1.maven.org/maven2/org/openapitools/openapi-generator-cli/$openapi_generator_version/openapi-generator-cli-$openapi_generator_version.jar"
  echo "$openapi_generator_sha256  $openapi_generator_jar.part" | sha256sum --check --quiet
  mv "$openapi_generator_jar.part" "$openapi_generator_jar"
fi
