package main

import (
	"context"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Read masks (AIP-157) are checked and applied by the server (api/read_mask.h). The API's JSON
// writes every field, set or not (protoJSON), so a masked answer would show the fields the mask
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

// maskedJSON is protojson without unset fields, for what appendFields cannot write (invalid
// UTF-8, timestamps out of range): the server cleared the fields outside the mask, so these are
// the kept fields less those at their zero value.
var maskedJSON = protojson.MarshalOptions{UseProtoNames: true}

func (m maskedResponse) marshalJSON() ([]byte, error) {
	out, err := appendFields(nil, m.msg.ProtoReflect(), m.fields)
	if err != nil {
		return maskedJSON.Marshal(m.msg)
	}
	return out, nil
}
