// Package changestream serves GET /api/v1/changes/stream, WatchChanges over HTTP (docs/changes.md).
package changestream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apijson"
	"hotel/gateway/internal/apirequest"
)

// Path is the stream's path.
const Path = "/api/v1/changes/stream"

// Client is the one call the stream handler makes (hotelv1.ChangeServiceClient has it).
type Client interface {
	WatchChanges(ctx context.Context, in *hotelv1.WatchChangesRequest, opts ...grpc.CallOption) (
		grpc.ServerStreamingClient[hotelv1.WatchChangesResponse], error)
}

// Handler serves Path by hand, as no generated stream handler can: an error before the first
// message gets its own HTTP status (410 for an expired cursor, 400, 429, 503), and a stream never
// times out, but a client that leaves a message untaken for WriteTimeout is ended. Server-Sent
// Events when the client accepts them (each change an event whose id is its cursor; Last-Event-ID
// resumes; heartbeats are comments), else grpc-gateway's NDJSON ({"result": ...} per line).
type Handler struct {
	Mux          *runtime.ServeMux // for the headers the generated handlers forward
	Client       Client            // Clients: connections apart from the calls'
	WriteTimeout time.Duration
}

// Clients spreads change streams over gRPC connections of their own: a server caps the streams
// of one HTTP/2 connection, and no number of watchers must fill the one unary calls travel on.
type Clients []Client

func (s Clients) WatchChanges(ctx context.Context, in *hotelv1.WatchChangesRequest, opts ...grpc.CallOption) (
	grpc.ServerStreamingClient[hotelv1.WatchChangesResponse], error) {
	return s[rand.IntN(len(s))].WatchChanges(ctx, in, opts...)
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

// watchRequest reads the query parameters with the generated handlers' parser; Last-Event-ID
// stands for `after` when the query has none (an EventSource reconnecting).
func watchRequest(r *http.Request) (*hotelv1.WatchChangesRequest, error) {
	req := &hotelv1.WatchChangesRequest{}
	if err := r.ParseForm(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := (&apirequest.QueryParser{}).Parse(req, r.Form, utilities.NewDoubleArray(nil)); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if req.GetAfter() == "" {
		req.After = strings.TrimSpace(r.Header.Get("Last-Event-ID"))
	}
	return req, nil
}

func (c *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A watch lasts as long as the client wants: no write deadline (the server's WriteTimeout)
	// except while a message is being written.
	control := http.NewResponseController(w)
	_ = control.SetWriteDeadline(time.Time{})
	sse := acceptsEventStream(r)
	req, err := watchRequest(r)
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
		return
	}
	// The headers the generated handlers forward (incomingHeader: the request id and the trace).
	annotated, err := runtime.AnnotateContext(r.Context(), c.Mux, r, "/hotel.v1.ChangeService/WatchChanges",
		runtime.WithHTTPPathPattern(Path))
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
		return
	}
	ctx, cancel := context.WithCancel(annotated)
	defer cancel()
	stream, err := c.Client.WatchChanges(ctx, req)
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
		return
	}
	// The server sends a heartbeat at once, so a refused watch (expired or malformed cursor,
	// too many watchers) is known before the status line is written.
	first, err := stream.Recv()
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
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
		_ = control.SetWriteDeadline(time.Now().Add(c.WriteTimeout))
		if err := writeWatchMessage(w, msg, sse); err != nil {
			return // the client is gone, or does not read
		}
		if err := control.Flush(); err != nil {
			return
		}
		_ = control.SetWriteDeadline(time.Time{})
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
	switch {
	case !sse:
		return writeJSON(w, `{"result":`, msg, "}\n")
	case msg.GetChange() == nil:
		_, err := fmt.Fprintf(w, ": heartbeat %s\n\n", msg.GetCursor())
		return err
	default:
		return writeJSON(w, "id: "+msg.GetCursor()+"\ndata: ", msg.GetChange(), "\n\n")
	}
}

// writeStreamError ends a stream that already answered 200: an "error" event (SSE) or an
// {"error": Status} line (NDJSON), holding the same Status a refused request gets.
func writeStreamError(w http.ResponseWriter, err error, sse bool) {
	st := apierror.WithDetails(status.Convert(err)).Proto()
	if sse {
		_ = writeJSON(w, "event: error\ndata: ", st, "\n\n")
	} else {
		_ = writeJSON(w, `{"error":`, st, "}\n")
	}
}

// writeJSON writes msg in the API's JSON between before and after.
func writeJSON(w http.ResponseWriter, before string, msg proto.Message, after string) error {
	body, err := apijson.Options.Marshal(msg)
	if err == nil {
		_, err = fmt.Fprintf(w, "%s%s%s", before, body, after)
	}
	return err
}
