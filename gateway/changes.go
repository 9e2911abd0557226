package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// changeStreamPath is GET /api/v1/changes/stream, WatchChanges over HTTP (docs/changes.md).
const changeStreamPath = "/api/v1/changes/stream"

// watchClient is the one call the stream handler makes (hotelv1.ChangeServiceClient has it).
type watchClient interface {
	WatchChanges(ctx context.Context, in *hotelv1.WatchChangesRequest, opts ...grpc.CallOption) (
		grpc.ServerStreamingClient[hotelv1.WatchChangesResponse], error)
}

// registerChangeStream serves changeStreamPath by hand instead of grpc-gateway's generated
// handler (registered later, so it wins: the mux matches the last registration first). Both
// formats answer errors that come before the first message with their own HTTP status (410 for
// an expired cursor, 400, 429, 503), which a generated stream handler cannot, and never time out:
//   - text/event-stream (Server-Sent Events) when the client accepts it: each change is an event
//     whose id is its cursor, Last-Event-ID resumes, heartbeats are comments carrying the cursor;
//   - otherwise newline-delimited JSON in grpc-gateway's shape: {"result": WatchChangesResponse}
//     per line, {"error": Status} as the last line if the stream fails.
func registerChangeStream(mux *runtime.ServeMux, client watchClient) error {
	return mux.HandlePath(http.MethodGet, changeStreamPath, func(w http.ResponseWriter, r *http.Request, _ map[string]string) {
		serveChangeStream(w, r, mux, client)
	})
}

func acceptsEventStream(r *http.Request) bool {
	for _, accept := range r.Header.Values("Accept") {
		for _, part := range strings.Split(accept, ",") {
			if strings.TrimSpace(strings.SplitN(part, ";", 2)[0]) == "text/event-stream" {
				return true
			}
		}
	}
	return false
}

// watchRequest reads the query parameters the way the generated handlers do; Last-Event-ID
// stands for `after` when the query has none (an EventSource reconnecting).
func watchRequest(r *http.Request) (*hotelv1.WatchChangesRequest, error) {
	req := &hotelv1.WatchChangesRequest{}
	if err := r.ParseForm(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := runtime.PopulateQueryParameters(req, r.Form, utilities.NewDoubleArray(nil)); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if req.GetAfter() == "" {
		req.After = strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	}
	return req, nil
}

func serveChangeStream(w http.ResponseWriter, r *http.Request, mux *runtime.ServeMux, client watchClient) {
	// A watch lasts as long as the client wants: no write deadline (the server's WriteTimeout).
	control := http.NewResponseController(w)
	_ = control.SetWriteDeadline(time.Time{})
	sse := acceptsEventStream(r)
	req, err := watchRequest(r)
	if err != nil {
		errorHandler(r.Context(), nil, nil, w, r, err)
		return
	}
	// The headers the generated handlers forward (incomingHeader: the request id and the trace).
	annotated, err := runtime.AnnotateContext(r.Context(), mux, r, "/hotel.v1.ChangeService/WatchChanges",
		runtime.WithHTTPPathPattern(changeStreamPath))
	if err != nil {
		errorHandler(r.Context(), nil, nil, w, r, err)
		return
	}
	ctx, cancel := context.WithCancel(annotated)
	defer cancel()
	stream, err := client.WatchChanges(ctx, req)
	if err != nil {
		errorHandler(r.Context(), nil, nil, w, r, err)
		return
	}
	// The server sends a heartbeat at once, so a refused watch (expired or malformed cursor,
	// too many watchers) is known before the status line is written.
	first, err := stream.Recv()
	if err != nil {
		errorHandler(r.Context(), nil, nil, w, r, err)
		return
	}
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no") // proxies must pass events on at once
	w.WriteHeader(http.StatusOK)
	for msg := first; ; {
		if err := writeWatchMessage(w, msg, sse); err != nil {
			return // the client is gone
		}
		if err := control.Flush(); err != nil {
			return
		}
		if msg, err = stream.Recv(); err != nil {
			if r.Context().Err() == nil && !errors.Is(err, io.EOF) {
				writeStreamError(w, err, sse)
				_ = control.Flush()
			}
			return
		}
	}
}

func writeWatchMessage(w http.ResponseWriter, msg *hotelv1.WatchChangesResponse, sse bool) error {
	if !sse {
		body, err := marshalJSON(msg)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "{\"result\":%s}\n", body)
		return err
	}
	if msg.GetChange() == nil {
		_, err := fmt.Fprintf(w, ": heartbeat %s\n\n", msg.GetCursor())
		return err
	}
	body, err := marshalJSON(msg.GetChange())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %s\ndata: %s\n\n", msg.GetCursor(), body)
	return err
}

// writeStreamError ends a stream that already answered 200: an "error" event (SSE) or an
// {"error": Status} line (NDJSON), holding the same Status a refused request gets.
func writeStreamError(w http.ResponseWriter, err error, sse bool) {
	st := withDetails(status.Convert(err))
	body, marshalErr := protoJSON.Marshal(st.Proto())
	if marshalErr != nil {
		return
	}
	if sse {
		_, _ = fmt.Fprintf(w, "event: error\ndata: %s\n\n", body)
		return
	}
	_, _ = fmt.Fprintf(w, "{\"error\":%s}\n", body)
}
