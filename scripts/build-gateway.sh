#!/usr/bin/env bash
# Builds the Go side: the pinned tools from gateway/go.mod (protoc plugins, grpcurl; with `all` also the test
# tools buf and grpc-health-probe) and tools/openapi/go.mod (hotel-openapi; with `all` also oasdiff) into build/bin/, the
# grpc-gateway and OpenAPI code generated from proto/hotel/v1 into gateway/gen/ (not committed),
# and build/bin/hotel-gateway. The published OpenAPI 3 document is gen/openapi/openapi.json:
# protoc-gen-openapiv2's Swagger 2.0, converted by hotel-openapi with gateway/openapi-overlay.yaml.
#   scripts/build-gateway.sh [run|all]   run: what scripts/up.sh serves with; all (default): the test tools too
set -euo pipefail
profile=${1:-all}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$root/build/bin
gen=$root/gateway/gen
mkdir -p "$bin"
cd "$root/gateway"
# go.mod and go.sum pin every module: the build never rewrites them.
export GOFLAGS=${GOFLAGS:--mod=readonly}

tools=(
  google.golang.org/protobuf/cmd/protoc-gen-go
  google.golang.org/grpc/cmd/protoc-gen-go-grpc
  github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway
  github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2
  github.com/fullstorydev/grpcurl/cmd/grpcurl
)
[ "$profile" = run ] || tools+=(github.com/bufbuild/buf/cmd/buf github.com/grpc-ecosystem/grpc-health-probe)
# The modules come from the Go module proxy once (the module cache keeps them). `run` fetches only what the
# builds below need (go build downloads them); `all` fetches every module of both graphs first, timed alone.
start=$SECONDS
if [ "$profile" != run ]; then
  go mod download && (cd "$root/tools/openapi" && go mod download)
  [ $((SECONDS - start)) -lt 2 ] || echo "build-gateway.sh: Go module downloads took $((SECONDS - start)) s"
fi
go build -o "$bin/" "${tools[@]}"
(cd "$root/tools/openapi" && go build -o "$bin/hotel-openapi" . &&
  if [ "$profile" != run ]; then go build -o "$bin/" github.com/oasdiff/oasdiff; fi)

rm -rf "$gen.tmp" && mkdir -p "$gen.tmp/openapi"
protos=("$root"/proto/hotel/v1/*.proto)
protoc -I "$root/proto" -I /usr/include \
  --plugin=protoc-gen-go="$bin/protoc-gen-go" --go_out="$gen.tmp" --go_opt=module=hotel/gateway/gen \
  --plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" --go-grpc_out="$gen.tmp" --go-grpc_opt=module=hotel/gateway/gen \
  --plugin=protoc-gen-grpc-gateway="$bin/protoc-gen-grpc-gateway" --grpc-gateway_out="$gen.tmp" \
  --grpc-gateway_opt=module=hotel/gateway/gen,grpc_api_configuration="$root/proto/hotel/v1/http.yaml" \
  --plugin=protoc-gen-openapiv2="$bin/protoc-gen-openapiv2" --openapiv2_out="$gen.tmp/openapi" \
  --openapiv2_opt=grpc_api_configuration="$root/proto/hotel/v1/http.yaml",json_names_for_fields=false,allow_merge=true,merge_file_name=hotel,disable_default_errors=false \
  "${protos[@]}"
# info.version is the service's semantic version, the one the server reports (CMake project()).
version=$(sed -n 's/^project(hotel_data_service VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "build-gateway.sh: no version in CMakeLists.txt project()" >&2; exit 1; }
"$bin/hotel-openapi" -in "$gen.tmp/openapi/hotel.swagger.json" -overlay "$root/gateway/openapi-overlay.yaml" \
  -version "$version" -out "$gen.tmp/openapi/openapi.json"
# The API reference page (/api/v1/docs, gateway/internal/httpapi/apidocs.go) embeds Swagger UI from npm, pinned and checked against
# the registry's integrity value; the tarball is kept in .local/cache. Only the bundle, its CSS and the licence go in.
swagger_ui_version=5.35.0
swagger_ui_integrity=sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ==
tarball=$root/.local/cache/swagger-ui-dist-$swagger_ui_version.tgz
integrity_of() { echo "sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }
if [ ! -f "$tarball" ] || [ "$(integrity_of "$tarball")" != "$swagger_ui_integrity" ]; then
  mkdir -p "$(dirname "$tarball")"
  curl -fsSL --retry 3 -o "$tarball.part" "https://registry.npmjs.org/swagger-ui-dist/-/swagger-ui-dist-$swagger_ui_version.tgz"
  [ "$(integrity_of "$tarball.part")" = "$swagger_ui_integrity" ] ||
    { echo "build-gateway.sh: swagger-ui-dist $swagger_ui_version does not match its pinned integrity" >&2; exit 1; }
  mv "$tarball.part" "$tarball"
fi
mkdir -p "$gen.tmp/swagger-ui"
tar -xzf "$tarball" -C "$gen.tmp/swagger-ui" --strip-components=1 \
  package/swagger-ui-bundle.js package/swagger-ui-bundle.js.LICENSE.txt package/swagger-ui.css package/LICENSE package/NOTICE
rm -rf "$gen" && mv "$gen.tmp" "$gen"
# The version the gateway reports (liveness, hotel_gateway_build_info) is the same one.
go build -ldflags "-X hotel/gateway/internal/telemetry.Version=$version" -o "$bin/hotel-gateway" ./cmd/hotel-gateway
[ "$profile" != run ] || [ $((SECONDS - start)) -lt 2 ] || echo "build-gateway.sh: the Go side (downloads and builds) took $((SECONDS - start)) s"
