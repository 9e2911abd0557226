package main

import (
	_ "embed"
)

// openAPIDocument is the published OpenAPI 3 contract, served at /api/v1/openapi.json. It is
// generated at build time (scripts/build-gateway.sh): protoc-gen-openapiv2's Swagger 2.0 from
// proto/hotel/v1, converted by tools/openapi with the checked-in gateway/openapi-overlay.yaml.
//
//go:embed gen/openapi/openapi.json
var openAPIJSON []byte

func openAPIDocument() []byte { return openAPIJSON }
