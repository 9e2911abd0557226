#!/usr/bin/env bash
# Installs what building, running and testing need on Debian bookworm: compilers, gRPC/protobuf/
# abseil/libpqxx, libcurl and OpenSSL (webhook deliveries), GoogleTest, PostgreSQL, promtool (alert rule tests),
# clang-format 14 (the C++ style check; bookworm's only version, so the formatting does not drift), the barman cloud
# tools (WAL archive, base backups and restores; docs/operations.md, "Backups and recovery"), Java 17 and Maven
# (OpenAPI Generator and the Java client it generates; tests/clients/openapi-generator/), Go (the version of
# gateway/go.mod, into .local/go/ when the PATH has none or an older one: scripts/go-toolchain.sh). Go tools are
# pinned in gateway/go.mod and built by scripts/build-gateway.sh. Idempotent: apt runs only when a package is missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libpqxx-dev libgtest-dev libvips-dev postgresql postgresql-contrib python3 python3-pip
  clang-format-14 libyaml-cpp-dev libcurl4-openssl-dev libssl-dev openjdk-17-jdk-headless maven unzip
)
# promtool comes with Debian's prometheus package, pinned to bookworm's 2.42 (any Debian revision:
# security updates replace the exact version on the mirrors). Its service is not started by us.
prometheus_version='2.42.0+ds-5*'
# barman-cli-cloud: bookworm's 3.4 (CloudNativePG runs the same tools), any Debian revision.
barman_version='3.4.0-1*'
# chromium: the API reference page's test (tests/e2e/test_api_docs.py) drives it headless; bookworm's build, which
# follows Debian's security updates (each replaces the exact version on the mirrors).
chromium_version='*~deb12u1'
# libvips-tools: the `vips` command line, the ceiling of the image upload benchmark (tests/perf/images_bench.py);
# bookworm's 8.14.1, the libvips the server links, any Debian revision.
vips_tools_version='8.14.1-3*'
missing=()
command -v vips >/dev/null || missing+=("libvips-tools=$vips_tools_version")
command -v chromium >/dev/null || missing+=("chromium=$chromium_version")
command -v promtool >/dev/null || missing+=("prometheus=$prometheus_version")
command -v barman-cloud-backup >/dev/null || missing+=("barman-cli-cloud=$barman_version")
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "${missing[@]}"
fi
. "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
use_go || { install_go "$go_dir" && use_go; }
# Test-only Python packages, pinned: pytest, PyYAML and kubernetes-validate (offline schema checks),
# schemathesis (fuzzes the gateway from its OpenAPI document), openapi-python-client (generates the
# Python client the tests call; tests/clients/), grpcio (sends raw protobuf the way no generated stub can),
# moto's server (the S3 endpoint the backup drill archives to and image uploads are stored in; docs/decisions.md),
# Pillow (makes and decodes the pictures of the upload tests), websocket-client (drives headless
# Chromium over the DevTools protocol: tests/e2e/test_api_docs.py), pytest-randomly (the suite runs shuffled).
python3 -c 'import pytest, yaml, kubernetes_validate, prometheus_client, schemathesis, openapi_python_client, grpc, moto.server, flask_cors, websocket, pytest_randomly, PIL' 2>/dev/null ||
  python3 -m pip install --quiet --root-user-action=ignore 'pytest>=8,<9' 'PyYAML==6.0.3' \
    'kubernetes-validate==1.37.0' 'prometheus-client==0.21.1' 'schemathesis==4.32.5' 'openapi-python-client==0.29.1' 'grpcio==1.76.0' \
    'moto[server]==5.2.1' 'websocket-client==1.8.0' 'pillow==12.0.0' \
    'pytest-randomly==3.16.0'
# squawk, the migration linter (scripts/lint-migrations.sh, .squawk.toml), pinned.
squawk_version=2.70.0
[ "$(squawk --version 2>/dev/null)" = "squawk $squawk_version" ] ||
  python3 -m pip install --quiet --root-user-action=ignore "squawk-cli==$squawk_version"
# The TypeScript client generator and compiler (openapi-typescript, openapi-fetch, typescript), pinned
# by tests/clients/typescript/package-lock.json. Node.js from Debian when none is installed.
if ! command -v npm >/dev/null; then
  sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends nodejs npm
fi
ts=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/clients/typescript" && pwd)
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
