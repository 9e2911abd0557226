// Command hotel-openapi turns the Swagger 2.0 document that protoc-gen-openapiv2 generates from
// proto/hotel/v1 into the published OpenAPI 3.0.3 contract, at build time:
//
//	hotel-openapi -in hotel.swagger.json -overlay gateway/openapi-overlay.yaml -version 1.0.0 -out openapi.json
//
// The conversion is kin-openapi's openapi2conv. On top of it come general rules that follow from
// how the gateway serializes JSON (every field is emitted, so an unset message or timestamp is
// null; enum parameters never need *_UNSPECIFIED; errors are google.rpc.Status with ErrorInfo and
// BadRequest details) and the checked-in overlay for what the protos cannot say: success codes,
// error statuses with their reasons, required fields and parameters, headers, operationIds.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"gopkg.in/yaml.v3"
)

// overlay is gateway/openapi-overlay.yaml.
type overlay struct {
	Info struct {
		Title       string `yaml:"title"`
		Description string `yaml:"description"`
	} `yaml:"info"`
	// The document's servers entry: a URL a generated client can use as it is.
	Servers []map[string]any `yaml:"servers"`
	// One tag per area, so that generators make one API class per area; every service has one.
	Tags []struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Services    []string `yaml:"services"`
	} `yaml:"tags"`
	// Errors every operation can answer (e.g. 503 while the database is unreachable).
	CommonErrors map[int]errorSpec `yaml:"common_errors"`
	// Errors every operation with a request body can answer (e.g. 413).
	BodyErrors map[int]errorSpec `yaml:"body_errors"`
	Operations map[string]struct {
		OperationID   string            `yaml:"operation_id"`
		Success       int               `yaml:"success"`
		Errors        map[int]errorSpec `yaml:"errors"`
		RequiredQuery []string          `yaml:"required_query"`
		Headers       []headerSpec      `yaml:"headers"`
		// Other statuses that answer with the success schema (GET /health: 503).
		AlsoSuccess map[int]string `yaml:"also_success"`
		// Headers of the success response (ETag).
		ResponseHeaders []headerSpec `yaml:"response_headers"`
		// A conditional GET's 304 Not Modified (If-None-Match matched the ETag): its description.
		NotModified string `yaml:"not_modified"`
		// The success response's body in other formats than JSON, by media type (a stream):
		// described as text; replaces application/json when Streaming is set.
		Streaming map[string]string `yaml:"streaming"`
		// What each item of a streamed body holds, by media type: a schema name. OpenAPI 3.0 has
		// no itemSchema (3.2 does), so it is the extension x-item-schema beside the description.
		// An NDJSON line is grpc-gateway's {"result": ..., "error": Status}: <name>StreamLine.
		StreamItems map[string]string `yaml:"stream_items"`
	} `yaml:"operations"`
	// Required properties of request body schemas, by schema name (after conversion).
	// Operations the gateway serves with handlers of its own (no http.yaml binding), added to
	// the document by hand: multipart/form-data uploads. Each is described in operations too.
	Multipart map[string]multipartSpec `yaml:"multipart_operations"`
	Required  map[string][]string      `yaml:"required"`
	// The properties an update body (<Name>Update, see splitSharedBodies) keeps, by schema name:
	// what a PATCH may change. Unlisted bodies keep every property that is not read-only.
	UpdateBodies map[string][]string `yaml:"update_bodies"`
}

type multipartSpec struct {
	Path        string `yaml:"path"` // an existing path (its GET is generated); the upload is its POST
	Summary     string `yaml:"summary"`
	Description string `yaml:"description"`
	Response    string `yaml:"response"` // schema of the success body
	Existing    string `yaml:"existing"` // description of the 200 answered for an existing resource
	Query       []struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	} `yaml:"query"` // required query parameters
	Fields []struct {
		Name        string `yaml:"name"`
		Type        string `yaml:"type"` // string (default), integer or binary
		Required    bool   `yaml:"required"`
		Description string `yaml:"description"`
	} `yaml:"fields"`
}

// addMultipartOperations puts the hand-served upload operations into paths, before the overlay's
// operations are applied to every operation alike.
func addMultipartOperations(paths obj, schemas obj, ops map[string]multipartSpec) error {
	for id, spec := range ops {
		item, ok := paths[spec.Path].(obj)
		if !ok {
			return fmt.Errorf("overlay: multipart_operations: %s: no path %s", id, spec.Path)
		}
		if _, ok := schemas[spec.Response]; !ok {
			return fmt.Errorf("overlay: multipart_operations: %s: no schema %s", id, spec.Response)
		}
		var params []any
		for _, name := range strings.Split(spec.Path, "{")[1:] {
			name, _, _ = strings.Cut(name, "}")
			params = append(params, obj{"name": name, "in": "path", "required": true, "schema": obj{"type": "string"}})
		}
		for _, q := range spec.Query {
			params = append(params, obj{"name": q.Name, "in": "query", "required": true, "description": q.Description,
				"schema": obj{"type": "string"}})
		}
		props, required := obj{}, []any{}
		for _, f := range spec.Fields {
			schema := obj{"type": "string", "description": f.Description}
			switch f.Type {
			case "integer":
				schema["type"], schema["format"] = "integer", "int32"
			case "binary":
				schema["format"] = "binary"
			}
			props[f.Name] = schema
			if f.Required {
				required = append(required, f.Name)
			}
		}
		body := obj{"type": "object", "properties": props, "required": required}
		encoding := obj{}
		for _, f := range spec.Fields {
			if f.Type == "binary" {
				encoding[f.Name] = obj{"contentType": "image/jpeg, image/png, image/webp"}
			}
		}
		item["post"] = obj{
			"operationId": id,
			"summary":     spec.Summary,
			"description": strings.TrimSpace(spec.Description),
			"parameters":  params,
			"requestBody": obj{"content": obj{"multipart/form-data": obj{"schema": body, "encoding": encoding}}},
			"responses": obj{"200": obj{"description": "A successful response.", "content": obj{
				"application/json": obj{"schema": obj{"$ref": "#/components/schemas/" + spec.Response}}}}},
		}
	}
	return nil
}

// orderedObj is a JSON object written with its keys in the given order (encoding/json writes a
// map's keys sorted).
type orderedObj struct {
	keys   []string
	values obj
}

func (o orderedObj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, key := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(key)
		value, err := json.Marshal(o.values[key])
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderMultipartProperties lists each upload body's properties in the overlay's order, the file
// last: generators write the parts in the order of the properties (OpenAPI Generator) or of the
// required ones, then the optional ones (openapi-python-client), and the gateway streams the
// file as it arrives. Done when the document is written: the rest of the tool sees plain maps.
func orderMultipartProperties(paths obj, ops map[string]multipartSpec) {
	for _, spec := range ops {
		media := paths[spec.Path].(obj)["post"].(obj)["requestBody"].(obj)["content"].(obj)["multipart/form-data"].(obj)
		schema := media["schema"].(obj)
		ordered := orderedObj{values: schema["properties"].(obj)}
		for _, f := range spec.Fields {
			ordered.keys = append(ordered.keys, f.Name)
		}
		schema["properties"] = ordered
	}
}

// addExistingAnswers gives each upload its 200: the existing resource, in the success's shape.
func addExistingAnswers(paths obj, ops map[string]multipartSpec) {
	for _, spec := range ops {
		op := paths[spec.Path].(obj)["post"].(obj)
		responses := op["responses"].(obj)
		for code, r := range responses {
			if code == "201" {
				existing := deepCopy(r).(obj)
				existing["description"] = spec.Existing
				responses["200"] = existing
			}
		}
	}
}

type errorSpec struct {
	Description string       `yaml:"description"`
	Reasons     []string     `yaml:"reasons"`
	Headers     []headerSpec `yaml:"headers"`
}

type headerSpec struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Required    bool   `yaml:"required"`
}

type obj = map[string]any

func main() {
	in := flag.String("in", "", "Swagger 2.0 document from protoc-gen-openapiv2")
	overlayPath := flag.String("overlay", "", "overlay YAML")
	version := flag.String("version", "", "semantic version of the service (info.version)")
	out := flag.String("out", "", "OpenAPI 3 document to write")
	flag.Parse()
	if *in == "" || *overlayPath == "" || *version == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *overlayPath, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "hotel-openapi:", err)
		os.Exit(1)
	}
}

func run(in, overlayPath, version, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var v2 openapi2.T
	if err := json.Unmarshal(raw, &v2); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	v3, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return fmt.Errorf("converting to OpenAPI 3: %w", err)
	}
	converted, err := json.Marshal(v3)
	if err != nil {
		return err
	}
	var doc obj
	if err := json.Unmarshal(converted, &doc); err != nil {
		return err
	}
	ovRaw, err := os.ReadFile(overlayPath)
	if err != nil {
		return err
	}
	var ov overlay
	dec := yaml.NewDecoder(strings.NewReader(string(ovRaw)))
	dec.KnownFields(true)
	if err := dec.Decode(&ov); err != nil {
		return fmt.Errorf("%s: %w", overlayPath, err)
	}
	if err := apply(doc, &ov, version); err != nil {
		return err
	}
	orderMultipartProperties(doc["paths"].(obj), ov.Multipart)
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(body, '\n'), 0o644)
}

func apply(doc obj, ov *overlay, version string) error {
	doc["openapi"] = "3.0.3"
	doc["info"] = obj{"title": ov.Info.Title, "version": version, "description": strings.TrimSpace(ov.Info.Description)}
	if len(ov.Servers) == 0 {
		return fmt.Errorf("overlay: no servers")
	}
	servers := []any{}
	for _, s := range ov.Servers {
		servers = append(servers, s)
	}
	doc["servers"] = servers
	tags, tagOf := []any{}, map[string]string{}
	for _, t := range ov.Tags {
		tags = append(tags, obj{"name": t.Name, "description": strings.TrimSpace(t.Description)})
		for _, service := range t.Services {
			tagOf[service] = t.Name
		}
	}
	doc["tags"] = tags
	components := doc["components"].(obj)
	schemas := components["schemas"].(obj)
	delete(schemas, "googleRpcStatus")
	delete(schemas, "protobufAny")
	// Schema names without protoc-gen-openapiv2's package prefix: v1Issue → Issue.
	renames := map[string]string{}
	for name := range schemas {
		short := strings.TrimPrefix(name, "v1")
		// EquipmentServiceCreateEquipmentBody → CreateEquipmentBody.
		if i := strings.Index(short, "Service"); i > 0 && strings.HasSuffix(short, "Body") {
			short = short[i+len("Service"):]
		}
		if short != name && schemas[short] == nil {
			renames["#/components/schemas/"+name] = "#/components/schemas/" + short
			schemas[short] = schemas[name]
			delete(schemas, name)
		}
	}
	renameRefs(doc, renames)
	for name, s := range errorSchemas() {
		schemas[name] = s
	}
	for name, schema := range schemas {
		fixSchema(name, schema.(obj), schemas)
	}
	for name, required := range ov.Required {
		s, ok := schemas[name].(obj)
		if !ok {
			return fmt.Errorf("overlay: required: no schema %q", name)
		}
		props, _ := s["properties"].(obj)
		for _, field := range required {
			if _, ok := props[field]; !ok {
				return fmt.Errorf("overlay: required: schema %q has no property %q", name, field)
			}
		}
		s["required"] = required
	}

	paths := doc["paths"].(obj)
	if err := addMultipartOperations(paths, schemas, ov.Multipart); err != nil {
		return err
	}
	defer addExistingAnswers(paths, ov.Multipart)
	splitSharedBodies(paths, schemas, ov.UpdateBodies)
	requireResponseFields(paths, schemas)
	openResponseEnums(paths, schemas)

	seen := map[string]bool{}
	for path, item := range paths {
		for method, op := range item.(obj) {
			op := op.(obj)
			id, _ := op["operationId"].(string)
			spec, ok := ov.Operations[id]
			if !ok {
				return fmt.Errorf("overlay: operation %s (%s %s) is not described", id, strings.ToUpper(method), path)
			}
			seen[id] = true
			service, _, _ := strings.Cut(id, "_")
			tag, ok := tagOf[service]
			if !ok {
				return fmt.Errorf("overlay: no tag lists service %s (operation %s)", service, id)
			}
			op["tags"] = []any{tag}
			if spec.OperationID != "" {
				op["operationId"] = spec.OperationID
			}
			if err := fixParameters(op, spec.RequiredQuery, spec.Headers, id); err != nil {
				return err
			}
			responses := op["responses"].(obj)
			okResp := responses["200"]
			success := spec.Success
			if success == 0 {
				success = 200
			}
			delete(responses, "200")
			responses[strconv.Itoa(success)] = okResp
			if len(spec.ResponseHeaders) > 0 {
				headers := obj{}
				for _, h := range spec.ResponseHeaders {
					headers[h.Name] = obj{"description": h.Description, "required": h.Required, "schema": obj{"type": "string"}}
				}
				okResp.(obj)["headers"] = headers
			}
			if len(spec.Streaming) > 0 {
				content := obj{}
				for media, description := range spec.Streaming {
					content[media] = obj{"schema": obj{"type": "string", "description": description}}
					item, ok := spec.StreamItems[media]
					if !ok {
						continue
					}
					if _, exists := schemas[item]; !exists {
						return fmt.Errorf("overlay: %s: stream item schema %q does not exist", id, item)
					}
					if media == "application/x-ndjson" {
						line := item + "StreamLine"
						schemas[line] = obj{
							"type":        "object",
							"description": "One line of an NDJSON stream: a " + item + " (`result`), or the Status that ends a stream failing after it started (`error`).",
							"properties": obj{
								"result": obj{"allOf": []any{obj{"$ref": "#/components/schemas/" + item}}, "nullable": true},
								"error":  obj{"allOf": []any{obj{"$ref": "#/components/schemas/Status"}}, "nullable": true},
							},
						}
						item = line
					}
					content[media].(obj)["x-item-schema"] = obj{"$ref": "#/components/schemas/" + item}
				}
				okResp.(obj)["content"] = content
			}
			if spec.NotModified != "" {
				params, _ := op["parameters"].([]any)
				op["parameters"] = append(params, obj{
					"name": "If-None-Match", "in": "header", "required": false, "schema": obj{"type": "string"},
					"description": "The ETag of the representation the client holds (quoted, as received): 304 with no body while it is current.",
				})
				responses["304"] = obj{"description": spec.NotModified, "headers": obj{
					"ETag": obj{"description": "The current ETag, quoted.", "required": true, "schema": obj{"type": "string"}},
				}}
			}
			for code, description := range spec.AlsoSuccess {
				// The server answers this status with the success body; the gateway answers it with a
				// Status when it cannot reach the server at all.
				r := deepCopy(okResp).(obj)
				r["description"] = description + " When the gateway cannot reach the server: a Status."
				content := r["content"].(obj)["application/json"].(obj)
				content["schema"] = obj{"oneOf": []any{content["schema"], obj{"$ref": "#/components/schemas/Status"}}}
				responses[strconv.Itoa(code)] = r
			}
			errs := map[int]errorSpec{}
			for code, e := range ov.CommonErrors {
				errs[code] = e
			}
			if _, hasBody := op["requestBody"]; hasBody {
				for code, e := range ov.BodyErrors {
					errs[code] = e
				}
			}
			for code, e := range spec.Errors {
				errs[code] = e
			}
			for code, e := range errs {
				if _, taken := responses[strconv.Itoa(code)]; taken {
					continue
				}
				responses[strconv.Itoa(code)] = errorResponse(e)
			}
			responses["default"] = errorResponse(errorSpec{Description: "Any other error (500 INTERNAL, ...)."})
			if rb, ok := op["requestBody"].(obj); ok {
				// A body without fields (POST .../ping) may be left out: a generated method then
				// takes no positional {} (the gateway reads an empty body as {}).
				rb["required"] = !emptySchema(rb, schemas)
			}
			if ok, _ := responses[strconv.Itoa(success)].(obj); ok != nil && emptySchema(ok, schemas) {
				// An empty answer (DELETE /webhooks/{id}: {}) is a typed model without fields,
				// not a free-form object.
				s := schemas[strings.TrimPrefix(contentRef(ok), "#/components/schemas/")].(obj)
				s["properties"], s["additionalProperties"] = obj{}, false
			}
		}
	}
	for id := range ov.Operations {
		if !seen[id] {
			return fmt.Errorf("overlay: operation %s does not exist", id)
		}
	}
	return nil
}

// splitSharedBodies gives a request body that reuses a response schema (PATCH /issues/{id} takes
// the Issue) a schema of its own, <Name>Update, without the read-only properties: the response
// schema can then require every field it always carries, and clients see what they may send.
// keep lists, by schema name, the only properties such a body has (the updatable ones), so that
// the body does not share the schemas of response-only properties (images) either.
func splitSharedBodies(paths obj, schemas obj, keep map[string][]string) {
	for _, item := range paths {
		for _, op := range item.(obj) {
			body, _ := op.(obj)["requestBody"].(obj)
			content, _ := body["content"].(obj)
			media, _ := content["application/json"].(obj)
			schema, _ := media["schema"].(obj)
			ref, _ := schema["$ref"].(string)
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if ref == "" || !usedByResponses(paths, ref) {
				continue
			}
			clone := deepCopy(schemas[name]).(obj)
			props, _ := clone["properties"].(obj)
			kept, listed := keep[name+"Update"]
			for prop, p := range props {
				if ro, _ := p.(obj)["readOnly"].(bool); ro || (listed && !slices.Contains(kept, prop)) {
					delete(props, prop)
				}
			}
			delete(clone, "required")
			schemas[name+"Update"] = clone
			schema["$ref"] = ref + "Update"
		}
	}
}

// contentRef is the schema $ref of a request body's or response's JSON content ("" if none).
func contentRef(o obj) string {
	content, _ := o["content"].(obj)
	media, _ := content["application/json"].(obj)
	schema, _ := media["schema"].(obj)
	ref, _ := schema["$ref"].(string)
	return ref
}

// emptySchema says whether o's JSON content is an object schema without properties.
func emptySchema(o obj, schemas obj) bool {
	ref := contentRef(o)
	s, _ := schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(obj)
	props, _ := s["properties"].(obj)
	return ref != "" && s != nil && s["type"] == "object" && len(props) == 0
}

// visitObjects calls fn on every JSON object inside v, depth first.
func visitObjects(v any, fn func(obj)) {
	switch v := v.(type) {
	case obj:
		fn(v)
		for _, child := range v {
			visitObjects(child, fn)
		}
	case []any:
		for _, child := range v {
			visitObjects(child, fn)
		}
	}
}

func usedByResponses(paths obj, ref string) bool {
	found := false
	for _, item := range paths {
		for _, op := range item.(obj) {
			visitObjects(op.(obj)["responses"], func(o obj) { found = found || o["$ref"] == ref })
		}
	}
	return found
}

// inputSchemas names every schema that a request body uses, directly or inside another one.
func inputSchemas(paths obj, schemas obj) map[string]bool {
	input := map[string]bool{}
	var markInput func(o obj)
	markInput = func(o obj) {
		if ref, ok := o["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !input[name] {
				input[name] = true
				visitObjects(schemas[name], markInput)
			}
		}
	}
	for _, item := range paths {
		for _, op := range item.(obj) {
			visitObjects(op.(obj)["requestBody"], markInput)
		}
	}
	return input
}

// requireResponseFields marks every property of a schema that only responses use as required:
// the gateway emits every field (EmitUnpopulated), so clients can rely on each being present
// (null where nullable). Schemas that request bodies use keep their optional fields.
func requireResponseFields(paths obj, schemas obj) {
	input := inputSchemas(paths, schemas)
	for name, s := range schemas {
		s := s.(obj)
		props, ok := s["properties"].(obj)
		if !ok || input[name] || s["required"] != nil {
			continue
		}
		names := make([]string, 0, len(props))
		for p := range props {
			names = append(names, p)
		}
		sort.Strings(names)
		s["required"] = names
	}
}

// openResponseEnums declares every enum a response carries open (docs/versioning.md, "Enums"):
// a minor release may add values, so a response property is a string whose known values are
// listed (x-extensible-enum and the description), never a closed enum that a generated client
// would refuse to decode once a value is added. Requests and parameters keep their closed enums:
// the service refuses a value it does not know. Enum schemas left unused are removed.
func openResponseEnums(paths obj, schemas obj) {
	input := inputSchemas(paths, schemas)
	open := func(p obj) {
		ref, _ := p["$ref"].(string)
		target, _ := schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(obj)
		values, isEnum := target["enum"].([]any)
		if !isEnum {
			return
		}
		delete(p, "$ref")
		p["type"] = "string"
		p["x-extensible-enum"] = values
		names := make([]string, len(values))
		for i, v := range values {
			names[i] = fmt.Sprint(v)
		}
		description, _ := target["description"].(string)
		p["description"] = strings.TrimSpace(description + " One of " + strings.Join(names, ", ") +
			"; a later 1.x release may add values: read one you do not know as " + names[0] + ".")
	}
	for name, s := range schemas {
		props, _ := s.(obj)["properties"].(obj)
		if input[name] {
			continue
		}
		for _, p := range props {
			p := p.(obj)
			open(p)
			if items, ok := p["items"].(obj); ok {
				open(items)
			}
		}
	}
	for name, s := range schemas {
		if _, isEnum := s.(obj)["enum"]; !isEnum {
			continue
		}
		used := false
		visitObjects(paths, func(o obj) { used = used || o["$ref"] == "#/components/schemas/"+name })
		visitObjects(schemas, func(o obj) { used = used || o["$ref"] == "#/components/schemas/"+name })
		if !used {
			delete(schemas, name)
		}
	}
}

// fixSchema applies what the gateway's JSON options imply to one schema.
func fixSchema(name string, s obj, schemas obj) {
	// Enum schemas: no default (a client must not send *_UNSPECIFIED because a generator filled in
	// the default); the value stays listed because a response may carry it.
	if _, isEnum := s["enum"]; isEnum {
		delete(s, "default")
	}
	props, _ := s["properties"].(obj)
	for _, p := range props {
		p := p.(obj)
		// protojson with EmitUnpopulated sends an unset message field, a timestamp included, as null.
		if p["format"] == "date-time" {
			p["nullable"] = true
		}
		// A google.protobuf.Struct (a free-form object) is a message too: null when unset.
		if p["type"] == "object" && p["properties"] == nil && p["additionalProperties"] == nil {
			p["nullable"] = true
		}
		if ref, ok := p["$ref"].(string); ok {
			target, _ := schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(obj)
			if target != nil && target["type"] == "object" {
				delete(p, "$ref")
				p["allOf"] = []any{obj{"$ref": ref}}
				p["nullable"] = true
			}
		}
		if items, ok := p["items"].(obj); ok {
			if ref, ok := items["$ref"].(string); ok && ref == "#/components/schemas/protobufAny" {
				items["$ref"] = "#/components/schemas/ErrorDetail"
			}
		}
	}
}

func fixParameters(op obj, requiredQuery []string, headers []headerSpec, id string) error {
	params, _ := op["parameters"].([]any)
	found := map[string]bool{}
	for _, p := range params {
		p := p.(obj)
		name, _ := p["name"].(string)
		schema, _ := p["schema"].(obj)
		if p["in"] == "query" {
			for _, r := range requiredQuery {
				if r == name {
					p["required"] = true
					found[name] = true
				}
			}
			// Enum parameters: *_UNSPECIFIED means "no filter", which is spelled by leaving the
			// parameter out; listing it makes generated clients send it on every call.
			if schema != nil {
				unprefixEnum(schema)
				stripUnspecified(schema)
				if items, ok := schema["items"].(obj); ok {
					stripUnspecified(items)
				}
			}
		}
	}
	for _, r := range requiredQuery {
		if !found[r] {
			return fmt.Errorf("overlay: %s has no query parameter %q", id, r)
		}
	}
	for _, h := range headers {
		params = append(params, obj{
			"name": h.Name, "in": "header", "required": h.Required,
			"description": h.Description, "schema": obj{"type": "string"},
		})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	return nil
}

// unprefixEnum offers an enum parameter's values without their type prefix first (view: BASIC,
// FULL), as every other enum travels; the prefixed names stay accepted (the gateway maps them,
// gateway/internal/apirequest/query.go). Only when every value but *_UNSPECIFIED carries the prefix.
func unprefixEnum(schema obj) {
	values, _ := schema["enum"].([]any)
	if len(values) == 0 {
		return
	}
	first, _ := values[0].(string)
	prefix, found := strings.CutSuffix(first, "UNSPECIFIED")
	if !found || prefix == "" {
		return
	}
	short := []any{}
	for _, v := range values[1:] {
		name, _ := v.(string)
		s, ok := strings.CutPrefix(name, prefix)
		if !ok {
			return
		}
		short = append(short, s)
	}
	schema["enum"] = append(short, values...)
}

func stripUnspecified(schema obj) {
	values, ok := schema["enum"].([]any)
	if !ok {
		return
	}
	kept := []any{}
	for _, v := range values {
		if s, _ := v.(string); !strings.HasSuffix(s, "_UNSPECIFIED") {
			kept = append(kept, v)
		}
	}
	schema["enum"] = kept
	delete(schema, "default")
}

func errorResponse(e errorSpec) obj {
	description := e.Description
	if len(e.Reasons) > 0 {
		reasons := append([]string(nil), e.Reasons...)
		sort.Strings(reasons)
		description += " ErrorInfo reasons: " + strings.Join(reasons, ", ") + "."
	}
	r := obj{
		"description": strings.TrimSpace(description),
		"content":     obj{"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Status"}}},
	}
	if len(e.Reasons) > 0 {
		r["x-error-reasons"] = e.Reasons
	}
	if len(e.Headers) > 0 {
		headers := obj{}
		for _, h := range e.Headers {
			headers[h.Name] = obj{"description": h.Description, "required": h.Required, "schema": obj{"type": "string"}}
		}
		r["headers"] = headers
	}
	return r
}

// errorSchemas: google.rpc.Status as the gateway and the server send it, with its two detail types.
func errorSchemas() obj {
	typeProp := func(name string) obj {
		return obj{"type": "string", "enum": []any{"type.googleapis.com/" + name}}
	}
	return obj{
		"Status": obj{
			"type":        "object",
			"description": "google.rpc.Status: every error answer. `code` is the gRPC code, `message` is for people, `details` carry the machine-readable reason (ErrorInfo) and the bad fields (BadRequest).",
			"required":    []any{"code", "message", "details"},
			"properties": obj{
				"code":    obj{"type": "integer", "format": "int32", "description": "gRPC status code (3 INVALID_ARGUMENT, 5 NOT_FOUND, ...)."},
				"message": obj{"type": "string"},
				"details": obj{"type": "array", "items": obj{"$ref": "#/components/schemas/ErrorDetail"}},
			},
		},
		"ErrorDetail": obj{
			"description": "One google.protobuf.Any detail of an error: ErrorInfo or BadRequest.",
			"oneOf": []any{
				obj{"$ref": "#/components/schemas/ErrorInfo"},
				obj{"$ref": "#/components/schemas/BadRequest"},
			},
		},
		"ErrorInfo": obj{
			"type":        "object",
			"description": "google.rpc.ErrorInfo: `reason` is a stable UPPER_SNAKE_CASE code (listed per response), `domain` is \"hotel.v1\".",
			"required":    []any{"@type", "reason", "domain"},
			"properties": obj{
				"@type":    typeProp("google.rpc.ErrorInfo"),
				"reason":   obj{"type": "string"},
				"domain":   obj{"type": "string"},
				"metadata": obj{"type": "object", "additionalProperties": obj{"type": "string"}},
			},
		},
		"BadRequest": obj{
			"type":        "object",
			"description": "google.rpc.BadRequest: one violation per bad field, named as in the request (snake_case).",
			"required":    []any{"@type", "field_violations"},
			"properties": obj{
				"@type": typeProp("google.rpc.BadRequest"),
				"field_violations": obj{"type": "array", "items": obj{
					"type":     "object",
					"required": []any{"field", "description"},
					"properties": obj{
						"field":       obj{"type": "string"},
						"description": obj{"type": "string"},
						"reason":      obj{"type": "string"},
					},
				}},
			},
		},
	}
}

func renameRefs(v any, renames map[string]string) {
	switch v := v.(type) {
	case obj:
		if ref, ok := v["$ref"].(string); ok && renames[ref] != "" {
			v["$ref"] = renames[ref]
		}
		for _, child := range v {
			renameRefs(child, renames)
		}
	case []any:
		for _, child := range v {
			renameRefs(child, renames)
		}
	}
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
