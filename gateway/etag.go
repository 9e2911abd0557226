package main

import (
	"context"
	"net/http"

	"google.golang.org/protobuf/proto"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// etagHeader sends an issue's etag as the ETag header too (quoted, as HTTP has it), so a client
// can send it straight back in If-Match. It runs before statusFromMetadata writes the status line.
func etagHeader(_ context.Context, w http.ResponseWriter, msg proto.Message) error {
	if issue, ok := msg.(*hotelv1.Issue); ok && issue.GetEtag() != "" {
		w.Header().Set("ETag", `"`+issue.GetEtag()+`"`)
	}
	return nil
}
