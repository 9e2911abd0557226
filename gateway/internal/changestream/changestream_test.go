package changestream

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// fakeWatch answers WatchChanges with fixed messages, then an error.
type fakeWatch struct {
	messages []*hotelv1.WatchChangesResponse
	err      error
	got      *hotelv1.WatchChangesRequest
}

func (f *fakeWatch) WatchChanges(_ context.Context, in *hotelv1.WatchChangesRequest, _ ...grpc.CallOption) (
	grpc.ServerStreamingClient[hotelv1.WatchChangesResponse], error) {
	f.got = in
	return &fakeStream{messages: f.messages, err: f.err}, nil
}

type fakeStream struct {
	grpc.ClientStream
	messages []*hotelv1.WatchChangesResponse
	err      error
}

func (s *fakeStream) Recv() (*hotelv1.WatchChangesResponse, error) {
	if len(s.messages) == 0 {
		return nil, s.err
	}
	m := s.messages[0]
	s.messages = s.messages[1:]
	return m, nil
}
func (s *fakeStream) Header() (metadata.MD, error) { return nil, nil }

func TestChangeStreamServesEventsAndResumesFromLastEventID(t *testing.T) {
	watch := &fakeWatch{messages: []*hotelv1.WatchChangesResponse{
		{Cursor: "AQAAAAAAAAAB"},
		{Cursor: "AQAAAAAAAAAC", Change: &hotelv1.Change{Cursor: "AQAAAAAAAAAC", ResourceId: "101",
			ResourceType: hotelv1.Change_ROOM}},
	}, err: status.Error(codes.Unavailable, "gone")}
	r := httptest.NewRequest(http.MethodGet, Path+"?resource_type=ROOM", nil)
	r.Header.Set("Accept", "text/html, text/event-stream;q=0.9")
	r.Header.Set("Last-Event-ID", "AQAAAAAAAAAB")
	w := httptest.NewRecorder()
	(&Handler{runtime.NewServeMux(), watch, time.Second}).ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Body)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	if watch.got.GetAfter() != "AQAAAAAAAAAB" || len(watch.got.GetResourceType()) != 1 {
		t.Errorf("request %v", watch.got)
	}
	for _, want := range []string{": heartbeat AQAAAAAAAAAB\n\n", "id: AQAAAAAAAAAC\ndata: {", `"resource_id":"101"`,
		"event: error\ndata: {", `"UNAVAILABLE"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
}

func TestChangeStreamNDJSONAndStatusBeforeTheFirstMessage(t *testing.T) {
	watch := &fakeWatch{messages: []*hotelv1.WatchChangesResponse{{Cursor: "AQAAAAAAAAAB"}}, err: io.EOF}
	w := httptest.NewRecorder()
	(&Handler{runtime.NewServeMux(), watch, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, Path, nil))
	var line struct {
		Result *struct {
			Change *json.RawMessage `json:"change"`
			Cursor string           `json:"cursor"`
		} `json:"result"`
	}
	lines := strings.Split(strings.TrimSuffix(w.Body.String(), "\n"), "\n")
	if w.Header().Get("Content-Type") != "application/x-ndjson" || len(lines) != 1 ||
		json.Unmarshal([]byte(lines[0]), &line) != nil || line.Result == nil || line.Result.Cursor != "AQAAAAAAAAAB" ||
		line.Result.Change != nil {
		t.Errorf("%v %q", w.Header(), w.Body.String())
	}
	expired, _ := status.New(codes.FailedPrecondition, "list again").WithDetails(
		&errdetails.ErrorInfo{Reason: "CURSOR_EXPIRED", Domain: apierror.Domain})
	w = httptest.NewRecorder()
	(&Handler{runtime.NewServeMux(), &fakeWatch{err: expired.Err()}, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, Path, nil))
	if w.Code != http.StatusGone || !strings.Contains(w.Body.String(), "CURSOR_EXPIRED") {
		t.Errorf("%d %s", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	(&Handler{runtime.NewServeMux(), watch, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, Path+"?resource_type=CAT", nil))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"resource_type"`) {
		t.Errorf("%d %s", w.Code, w.Body.String())
	}
}

// endlessWatch sends large heartbeats for as long as its context lasts.
type endlessWatch struct{}

func (endlessWatch) WatchChanges(ctx context.Context, _ *hotelv1.WatchChangesRequest, _ ...grpc.CallOption) (
	grpc.ServerStreamingClient[hotelv1.WatchChangesResponse], error) {
	return &endlessStream{ctx: ctx}, nil
}

type endlessStream struct {
	grpc.ClientStream
	ctx context.Context
}

func (s *endlessStream) Recv() (*hotelv1.WatchChangesResponse, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return &hotelv1.WatchChangesResponse{Cursor: strings.Repeat("A", 64<<10)}, nil
}
func (s *endlessStream) Header() (metadata.MD, error) { return nil, nil }

// A watcher that stops reading is ended once a message has waited the write timeout.
func TestAWatcherThatStopsReadingIsEnded(t *testing.T) {
	ended := make(chan struct{})
	h := &Handler{Mux: runtime.NewServeMux(), Client: endlessWatch{}, WriteTimeout: 200 * time.Millisecond}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(ended)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)
	conn, err := net.Dial("tcp", server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Write([]byte("GET " + Path + " HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream of a client that does not read was not ended")
	}
}
