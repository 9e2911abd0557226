// Package gateway holds what the build generates for the gateway to serve (scripts/build-gateway.sh):
// the OpenAPI document and Swagger UI. Go embeds only files at or below a package's folder.
package gateway

import "embed"

// OpenAPI is the published OpenAPI 3 contract, served at /api/v1/openapi.json: protoc-gen-openapiv2's
// Swagger 2.0 from proto/hotel/v1, converted by tools/openapi with openapi-overlay.yaml.
//
//go:embed gen/openapi/openapi.json
var OpenAPI []byte

// SwaggerUI is npm's swagger-ui-dist (pinned and integrity-checked by the build), under gen/swagger-ui.
//
//go:embed gen/swagger-ui
var SwaggerUI embed.FS
