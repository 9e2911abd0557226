package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"hotel/gateway/internal/apijson"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
)

// Read masks (AIP-157) are checked and applied by the server (api/read_mask.h). The API's JSON
// writes every field, set or not (apijson.Options), so a masked answer would show the fields the mask
// left out with zero values; the server therefore names the answer's fields in the x-read-mask
// header and the gateway writes only those.
const (
	readMaskHeader = "x-read-mask"
	// A single resource's etag when the mask leaves it out, for its ETag header (etag.go).
	resourceEtagHeader = "x-resource-etag"
)

// maskedResponse is a response the server masked, with the paths of the fields it kept
// ("data.number", "next_page_token").
type maskedResponse struct {
	msg   proto.Message
	paths []string
}

// maskResponse is the mux's response rewriter: a response the server masked is written with
// only the fields the mask kept.
func maskResponse(ctx context.Context, resp proto.Message) (any, error) {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return resp, nil
	}
	paths := md.HeaderMD.Get(readMaskHeader)
	if len(paths) == 0 {
		return resp, nil
	}
	return maskedResponse{msg: resp, paths: strings.Split(paths[0], ",")}, nil
}

// marshalJSON writes the API's JSON of the response with only the kept fields.
func (m maskedResponse) marshalJSON() ([]byte, error) {
	full, err := apijson.Options.Marshal(m.msg)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(full))
	dec.UseNumber() // numbers stay as protojson wrote them
	var value any
	if err := dec.Decode(&value); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(keep(value, m.paths, "")); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// keep is value (decoded JSON, below the path prefix) with only the fields paths keep whole or
// lead into, in each element of a list.
func keep(value any, paths []string, prefix string) any {
	switch v := value.(type) {
	case map[string]any:
		for name, field := range v {
			path := prefix + name
			switch {
			case slices.Contains(paths, path): // kept whole
			case slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, path+".") }):
				v[name] = keep(field, paths, path+".")
			default:
				delete(v, name)
			}
		}
	case []any:
		for i := range v {
			v[i] = keep(v[i], paths, prefix)
		}
	}
	return value
}
