package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

func TestETagMatchesIsWeakComparisonOverAList(t *testing.T) {
	for _, c := range []struct {
		header, etag string
		want         bool
	}{
		{`"a"`, `"a"`, true},
		{`W/"a"`, `"a"`, true},
		{`"x", "a"`, `"a"`, true},
		{`*`, `"a"`, true},
		{`"b"`, `"a"`, false},
		{`"a"`, ``, false},
	} {
		if got := etagMatches(c.header, c.etag); got != c.want {
			t.Errorf("etagMatches(%q, %q) = %v", c.header, c.etag, got)
		}
	}
}

func TestETagIsSentSpelledAsDeclared(t *testing.T) {
	w := httptest.NewRecorder()
	if err := etagHeader(context.Background(), w, &hotelv1.Issue{Etag: "7"}); err != nil {
		t.Fatal(err)
	}
	// The key as written on the wire: "ETag" (the document's spelling), not Go's canonical "Etag".
	if got := w.Header()["ETag"]; len(got) != 1 || got[0] != `"7"` || w.Header()["Etag"] != nil {
		t.Errorf("headers %v", w.Header())
	}
}

func TestRepresentationETagFollowsTheContent(t *testing.T) {
	a, _ := representationETag(&hotelv1.Room{Number: "101", PropertyId: "BER1"})
	b, _ := representationETag(&hotelv1.Room{Number: "101", PropertyId: "BER1"})
	c, _ := representationETag(&hotelv1.Room{Number: "101", PropertyId: "BER1", OutOfOrder: true})
	if a != b || a == c || !strings.HasPrefix(a, `"`) {
		t.Errorf("etags %s %s %s", a, b, c)
	}
}

func TestConditionalGetAnswers304OnlyForAMatchingOK(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setETag(w.Header(), `"v1"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number":"101"}`))
	})
	for _, c := range []struct {
		method, ifNoneMatch string
		status              int
		body                string
	}{
		{http.MethodGet, `"v1"`, http.StatusNotModified, ""},
		{http.MethodGet, `"v0"`, http.StatusOK, `{"number":"101"}`},
		{http.MethodGet, "", http.StatusOK, `{"number":"101"}`},
		{http.MethodPatch, `"v1"`, http.StatusOK, `{"number":"101"}`},
	} {
		r := httptest.NewRequest(c.method, "/api/v1/rooms/101?property_id=BER1", nil)
		if c.ifNoneMatch != "" {
			r.Header.Set("If-None-Match", c.ifNoneMatch)
		}
		w := httptest.NewRecorder()
		conditionalGet(next).ServeHTTP(w, r)
		if w.Code != c.status || w.Body.String() != c.body || etagOf(w.Header()) != `"v1"` {
			t.Errorf("%s If-None-Match %q: %d %q %v", c.method, c.ifNoneMatch, w.Code, w.Body.String(), w.Header())
		}
	}
}

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
	r := httptest.NewRequest(http.MethodGet, changeStreamPath+"?resource_type=ROOM", nil)
	r.Header.Set("Accept", "text/html, text/event-stream;q=0.9")
	r.Header.Set("Last-Event-ID", "AQAAAAAAAAAB")
	w := httptest.NewRecorder()
	(&changeStream{newServeMux(), watch, time.Second}).ServeHTTP(w, r)
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
	(&changeStream{newServeMux(), watch, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, changeStreamPath, nil))
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
		&errdetails.ErrorInfo{Reason: "CURSOR_EXPIRED", Domain: errorDomain})
	w = httptest.NewRecorder()
	(&changeStream{newServeMux(), &fakeWatch{err: expired.Err()}, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, changeStreamPath, nil))
	if w.Code != http.StatusGone || !strings.Contains(w.Body.String(), "CURSOR_EXPIRED") {
		t.Errorf("%d %s", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	(&changeStream{newServeMux(), watch, time.Second}).ServeHTTP(w, httptest.NewRequest(http.MethodGet, changeStreamPath+"?resource_type=CAT", nil))
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

// A watcher that stops reading is ended once a message has waited the write timeout, and its
// stream slot is free again.
func TestAWatcherThatStopsReadingIsEnded(t *testing.T) {
	g := newTestGateway(t, newServeMux())
	g.watch = &changeStream{mux: g.api, client: endlessWatch{}, writeTimeout: 200 * time.Millisecond}
	serveRaw(t, g.handler(), "GET "+changeStreamPath+" HTTP/1.1\r\nHost: x\r\n\r\n")
	waitUntil(t, "the stream admitted", func() bool { return len(g.streams.slots) == 1 })
	waitUntil(t, "the stream ended", func() bool { return len(g.streams.slots) == 0 })
}
