# Sourced by the scripts that run Go (install-deps.sh, build.sh, test.sh, up.sh): the Go toolchain the
# project needs is the `go` line of gateway/go.mod. A Go on the PATH at least that new is used as it is;
# otherwise that exact version is installed from the Go module proxy (the golang.org/toolchain module,
# which is what GOTOOLCHAIN downloads; checked against the SHA-256 pinned below) into
# .local/go/<version> and put first on the PATH. Nothing outside .local/ is touched.
#   use_go          puts the project's Go first on the PATH when the PATH's own Go is missing or too old;
#                   fails when neither is there
#   install_go DIR  downloads (once; the verified zip is kept in .local/cache) and unpacks it into DIR
#   cached_go_binary NAME BINARY COMMAND...
#                   runs COMMAND (which makes BINARY) once, one build at a time (a lock beside BINARY's
#                   folder), unless BINARY is there already; prints BINARY (test tools built from the proxy)
hotel_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
go_wanted=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$hotel_root/gateway/go.mod")
go_dir=${HOTEL_GO_DIR:-$hotel_root/.local/go/$go_wanted}
# SHA-256 of the proxy's zip per platform; a new version in gateway/go.mod needs new sums here.
declare -A go_zip_sha256=(
  [1.26.8.linux-amd64]=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
  [1.26.8.linux-arm64]=02b36b6787b3ac767668f630e2998df45a3b1f9ffee08d1bf3ef6487cd658d99
)

# True when `go` on the PATH is at least the wanted version.
go_new_enough() {
  local have
  have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null) || return 1
  have=${have#go}
  [ "$(printf '%s\n%s\n' "$go_wanted" "$have" | sort -V | head -n 1)" = "$go_wanted" ]
}

use_go() {
  go_new_enough && return 0
  [ -x "$go_dir/bin/go" ] || return 1
  export PATH="$go_dir/bin:$PATH"
  go_new_enough
}

install_go() {
  local dir=$1 arch platform sum zip tmp
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  platform=$go_wanted.linux-$arch
  sum=${go_zip_sha256[$platform]:-}
  [ -n "$sum" ] || { echo "go-toolchain.sh: no pinned checksum for Go $platform (scripts/go-toolchain.sh)" >&2; return 1; }
  zip=$hotel_root/.local/cache/go$platform.zip
  mkdir -p "$(dirname "$zip")"
  if ! echo "$sum  $zip" | sha256sum -c --status 2>/dev/null; then
    echo "installing Go $go_wanted from the Go module proxy into $dir"
    curl -fsSL --retry 3 -o "$zip.part" "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$platform.zip"
    echo "$sum  $zip.part" | sha256sum -c --status ||
      { echo "go-toolchain.sh: the downloaded Go $platform does not match its pinned SHA-256" >&2; rm -f "$zip.part"; return 1; }
    mv "$zip.part" "$zip"
  fi
  tmp=$(mktemp -d "$(dirname "$zip")/go-unpack.XXXXXX")
  unzip -q "$zip" -d "$tmp"
  # Module zips keep no file modes: make the commands executable, as the go command does for toolchains.
  chmod -R a+x "$tmp/golang.org/toolchain@v0.0.1-go$platform/bin" "$tmp/golang.org/toolchain@v0.0.1-go$platform/pkg/tool"
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")"
  mv "$tmp/golang.org/toolchain@v0.0.1-go$platform" "$dir"
  rm -rf "$tmp"
}

cached_go_binary() {
  local name=$1 binary=$2 dir start
  shift 2
  dir=$(dirname "$binary")
  mkdir -p "$dir"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -x "$binary" ]; then
    start=$SECONDS
    echo "$name: building $binary" >&2
    "$@" >&2
    echo "$name: built in $((SECONDS - start)) s" >&2
  fi
  echo "$binary"
}
