package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"hotel/gateway/internal/apierror"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
)

// Read masks (AIP-157) are checked and applied by the server (api/read_mask.h). The API's JSON
// writes every field, set or not (apierror.JSON), so a masked answer would show the fields the mask
// left out with zero values; the server therefore names the answer's fields in the x-read-mask
// header and the gateway writes only those.
const (
	readMaskHeader = "x-read-mask"
	// A single resource's etag when the mask leaves it out, for its ETag header (etag.go).
	resourceEtagHeader = "x-resource-etag"
)

// fieldTree is the fields a mask keeps, by proto name: nil for a field kept whole, otherwise its
// own kept fields (of each element, for a repeated message).
type fieldTree map[string]fieldTree

// parseFieldTree reads the server's comma-separated paths ("data.number,next_page_token").
func parseFieldTree(paths string) fieldTree {
	tree := fieldTree{}
	for _, path := range strings.Split(paths, ",") {
		node := tree
		names := strings.Split(path, ".")
		for i, name := range names {
			if i == len(names)-1 {
				node[name] = nil
				break
			}
			child, ok := node[name]
			if ok && child == nil {
				break // kept whole already
			}
			if child == nil {
				child = fieldTree{}
				node[name] = child
			}
			node = child
		}
	}
	return tree
}

// maskedResponse is a response the server masked, with the fields it kept.
type maskedResponse struct {
	msg    proto.Message
	fields fieldTree
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
	return maskedResponse{msg: resp, fields: parseFieldTree(paths[0])}, nil
}

// marshalJSON writes the API's JSON of the response with only the kept fields.
func (m maskedResponse) marshalJSON() ([]byte, error) {
	full, err := apierror.JSON.Marshal(m.msg)
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
	if err := enc.Encode(m.fields.keep(value)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// keep is value (decoded JSON) with only the tree's fields, in each element of a list.
func (t fieldTree) keep(value any) any {
	switch v := value.(type) {
	case map[string]any:
		kept := make(map[string]any, len(t))
		for name, sub := range t {
			if field, ok := v[name]; ok {
				if sub != nil {
					field = sub.keep(field)
				}
				kept[name] = field
			}
		}
		return kept
	case []any:
		for i := range v {
			v[i] = t.keep(v[i])
		}
	}
	return value
}
