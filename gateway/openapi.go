package main

import (
	"embed"
	"encoding/json"
	"sync"
)

//go:embed gen/openapi/hotel.swagger.json
var openAPIFiles embed.FS

// openAPIDocument is the generated OpenAPI document, corrected where protoc-gen-openapiv2
// describes the JSON we send less exactly than it is: the gateway emits every field, so an unset
// timestamp (resolved_at of an open issue) is null, which Swagger 2.0 spells x-nullable.
var openAPIDocument = sync.OnceValue(func() []byte {
	raw, err := openAPIFiles.ReadFile("gen/openapi/hotel.swagger.json")
	if err != nil {
		panic(err) // embedded at build time: cannot happen
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		panic(err)
	}
	definitions, _ := doc["definitions"].(map[string]any)
	for _, definition := range definitions {
		properties, _ := definition.(map[string]any)["properties"].(map[string]any)
		for _, property := range properties {
			if p, ok := property.(map[string]any); ok && p["format"] == "date-time" {
				p["x-nullable"] = true
			}
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return out
})
