package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/telemetry"
)

// fakeBackend is an in-process gRPC server on a loopback port standing in for hotel-server.
type fakeBackend struct {
	hotelv1.UnimplementedHealthServiceServer
	hotelv1.UnimplementedIssueServiceServer

	mu          sync.Mutex
	metadata    metadata.MD
	hasDeadline bool
	release     chan struct{} // "slow" issues wait for it
}

func (f *fakeBackend) record(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.metadata, _ = metadata.FromIncomingContext(ctx)
	_, f.hasDeadline = ctx.Deadline()
}

// GetHealth answers like a server whose database is down: a body, and x-http-code 503.
func (f *fakeBackend) GetHealth(ctx context.Context, _ *hotelv1.GetHealthRequest) (*hotelv1.GetHealthResponse, error) {
	if err := grpc.SetHeader(ctx, metadata.Pairs(httpCodeHeader, "503")); err != nil {
		return nil, err
	}
	return &hotelv1.GetHealthResponse{Status: hotelv1.HealthCheck_NOT_SERVING, Version: "1.0.0"}, nil
}

func (f *fakeBackend) GetLiveness(context.Context, *hotelv1.GetLivenessRequest) (*hotelv1.GetLivenessResponse, error) {
	return &hotelv1.GetLivenessResponse{Status: hotelv1.HealthCheck_SERVING, Version: "1.0.0"}, nil
}

func (f *fakeBackend) GetIssue(ctx context.Context, req *hotelv1.GetIssueRequest) (*hotelv1.Issue, error) {
	f.record(ctx)
	switch req.GetId() {
	case "transition":
		st, _ := status.New(codes.FailedPrecondition, "CLOSED cannot change to IN_PROGRESS").
			WithDetails(&errdetails.ErrorInfo{Reason: "INVALID_TRANSITION", Domain: apierror.Domain})
		return nil, st.Err()
	case "precondition":
		st, _ := status.New(codes.FailedPrecondition, "room is out of order").
			WithDetails(&errdetails.ErrorInfo{Reason: "ROOM_OUT_OF_ORDER", Domain: apierror.Domain})
		return nil, st.Err()
	case "aborted":
		return nil, status.Error(codes.Aborted, "concurrent update")
	case "canceled": // as the server resets calls while it shuts down
		return nil, status.Error(codes.Canceled, "shutting down")
	case "overloaded": // as the server's admission control refuses a call
		_ = grpc.SetTrailer(ctx, metadata.Pairs(apierror.RetryPushbackHeader, "2500"))
		st, _ := status.New(codes.Unavailable, "the server is overloaded; retry after a back-off").
			WithDetails(&errdetails.ErrorInfo{Reason: "OVERLOADED", Domain: apierror.Domain})
		return nil, st.Err()
	case "slow":
		select {
		case <-f.release:
		case <-ctx.Done():
		}
	case "bad":
		st, _ := status.New(codes.InvalidArgument, "title is required").WithDetails(
			&errdetails.ErrorInfo{Reason: "TITLE_REQUIRED", Domain: apierror.Domain},
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
				{Field: "title", Description: "required"},
			}})
		return nil, st.Err()
	}
	return &hotelv1.Issue{Id: req.GetId()}, nil
}

// compact is the response body without the random whitespace protojson inserts.
func compact(rec *httptest.ResponseRecorder) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, rec.Body.Bytes()); err != nil {
		return rec.Body.String()
	}
	return buf.String()
}

func startBackend(t *testing.T) (*fakeBackend, http.Handler) {
	t.Helper()
	backend, g := startBackendGateway(t)
	return backend, g.Handler()
}

// startBackendGateway is startBackend's gateway, for tests that change a part before serving.
func startBackendGateway(t *testing.T) (*fakeBackend, *Gateway) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	backend := &fakeBackend{release: make(chan struct{})}
	server := grpc.NewServer()
	hotelv1.RegisterHealthServiceServer(server, backend)
	hotelv1.RegisterIssueServiceServer(server, backend)
	go func() { _ = server.Serve(lis) }()
	t.Cleanup(server.Stop)

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		telemetry.GRPCClientTracing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	mux := NewServeMux()
	for _, register := range []func(context.Context, *runtime.ServeMux, *grpc.ClientConn) error{
		hotelv1.RegisterHealthServiceHandler,
		hotelv1.RegisterIssueServiceHandler,
	} {
		if err := register(context.Background(), mux, conn); err != nil {
			t.Fatal(err)
		}
	}
	return backend, newTestGateway(t, mux)
}

func TestHealthStatusComesFromXHTTPCode(t *testing.T) {
	_, h := startBackend(t)
	rec, _ := do(t, h, "GET", "/api/v1/health", nil)
	if rec.Code != 503 || !strings.Contains(compact(rec), `"status":"NOT_SERVING"`) {
		t.Errorf("health: %d %s", rec.Code, compact(rec))
	}
	for name := range rec.Header() {
		if strings.Contains(strings.ToLower(name), "x-http-code") {
			t.Errorf("x-http-code leaked as response header %q", name)
		}
	}
	rec, _ = do(t, h, "GET", "/api/v1/health/live", nil)
	if rec.Code != 200 || !strings.Contains(compact(rec), `"status":"SERVING"`) {
		t.Errorf("live: %d %s", rec.Code, compact(rec))
	}
}

func TestIfMatchAndRequestIDReachTheServer(t *testing.T) {
	backend, h := startBackend(t)
	req := httptest.NewRequest("GET", "/api/v1/issues/abc", nil)
	req.Header.Set("If-Match", `"7"`)
	req.Header.Set("X-Request-Id", "req-42")
	req.Header.Set("X-Not-Forwarded", "secret")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(compact(rec), `"id":"abc"`) {
		t.Fatalf("got %d %s", rec.Code, compact(rec))
	}
	backend.mu.Lock()
	defer backend.mu.Unlock()
	if got := backend.metadata.Get("if-match"); len(got) != 1 || got[0] != `"7"` {
		t.Errorf("if-match: %v", got)
	}
	if got := backend.metadata.Get("x-request-id"); len(got) != 1 || got[0] != "req-42" {
		t.Errorf("x-request-id: %v", got)
	}
	if got := backend.metadata.Get("x-not-forwarded"); len(got) != 0 {
		t.Errorf("arbitrary header forwarded: %v", got)
	}
	if !backend.hasDeadline {
		t.Errorf("no default deadline on the gRPC call")
	}
}

func TestServerErrorsMapToHTTPWithTheirDetails(t *testing.T) {
	_, h := startBackend(t)
	for id, want := range map[string]struct {
		http, code int
		reason     string
	}{
		"transition":   {409, 9, "INVALID_TRANSITION"},
		"precondition": {400, 9, "ROOM_OUT_OF_ORDER"},
		"aborted":      {409, 10, "ABORTED"},
		"bad":          {400, 3, "TITLE_REQUIRED"},
		"canceled":     {503, 14, "UNAVAILABLE"},
	} {
		rec, body := do(t, h, "GET", "/api/v1/issues/"+id, nil)
		if rec.Code != want.http || body.Code != want.code || !strings.Contains(compact(rec), `"reason":"`+want.reason+`"`) {
			t.Errorf("%s: got %d %s", id, rec.Code, compact(rec))
		}
	}
	rec, _ := do(t, h, "GET", "/api/v1/issues/bad", nil)
	if !strings.Contains(compact(rec), `"@type":"type.googleapis.com/google.rpc.BadRequest"`) ||
		!strings.Contains(compact(rec), `"field":"title"`) {
		t.Errorf("BadRequest lost: %s", compact(rec))
	}
}

func TestChunkedOversizedBodyIs413(t *testing.T) {
	_, h := startBackend(t)
	body := `{"title": "` + strings.Repeat("x", apierror.MaxBodyBytes) + `"}`
	req := httptest.NewRequest("PATCH", "/api/v1/issues/abc", strings.NewReader(body))
	req.ContentLength = -1 // as for Transfer-Encoding: chunked
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 413 || !strings.Contains(compact(rec), "PAYLOAD_TOO_LARGE") {
		t.Errorf("got %d %s", rec.Code, compact(rec))
	}
}

// serveRecorded serves GET /api/v1/issues/abc with the caller's traceparent (and tracestate, if
// any) through the gateway and a fake server, its spans going to the returned recorder.
func serveRecorded(t *testing.T, traceparent, tracestate string) (*fakeBackend, *httptest.ResponseRecorder, *tracetest.SpanRecorder) {
	t.Helper()
	recorder := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)))
	t.Cleanup(func() { _, _ = telemetry.SetupTracing(context.Background(), func(string) string { return "" }) })
	backend, h := startBackend(t)
	req := httptest.NewRequest("GET", "/api/v1/issues/abc", nil)
	req.Header.Set("Traceparent", traceparent)
	if tracestate != "" {
		req.Header.Set("Tracestate", tracestate)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("got %d %s", rec.Code, compact(rec))
	}
	return backend, rec, recorder
}

// The server gets the gateway's gRPC client span as the parent, a child of the request's span that
// the caller is answered, and the caller's tracestate; both spans are recorded, named by the route
// and the method.
func TestTraceContextReachesTheServer(t *testing.T) {
	backend, rec, recorder := serveRecorded(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE")
	backend.mu.Lock()
	defer backend.mu.Unlock()
	answered := rec.Header().Get("Traceparent")
	sent := backend.metadata.Get("traceparent")
	if len(sent) != 1 || !strings.HasPrefix(answered, "00-4bf92f3577b34da6a3ce929d0e0e4736-") ||
		!strings.HasPrefix(sent[0], "00-4bf92f3577b34da6a3ce929d0e0e4736-") || sent[0] == answered ||
		strings.Contains(answered, "00f067aa0ba902b7") || !strings.HasSuffix(sent[0], "-01") {
		t.Fatalf("traceparent: sent %v, answered %q", sent, answered)
	}
	if got := backend.metadata.Get("tracestate"); len(got) != 1 || got[0] != "congo=t61rcWkgMzE" {
		t.Errorf("tracestate: %v", got)
	}
	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, span := range recorder.Ended() {
		spans[span.SpanContext().SpanID().String()] = span
	}
	server, client := spans[answered[36:52]], spans[sent[0][36:52]]
	if server == nil || client == nil {
		t.Fatalf("spans recorded: %v", spans)
	}
	if server.Name() != "GET /api/v1/issues/{id}" || server.SpanKind() != trace.SpanKindServer ||
		server.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("server span %q %v parent %v", server.Name(), server.SpanKind(), server.Parent().SpanID())
	}
	if client.Name() != "hotel.v1.IssueService/GetIssue" || client.SpanKind() != trace.SpanKindClient ||
		client.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("client span %q %v parent %v", client.Name(), client.SpanKind(), client.Parent().SpanID())
	}
}

// Under an unsampled request nothing is recorded, and the server continues the request's trace
// (unsampled), so its logs and the change log carry the same trace id.
func TestAnUnsampledRequestSendsItsOwnSpanToTheServer(t *testing.T) {
	backend, rec, recorder := serveRecorded(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "")
	backend.mu.Lock()
	defer backend.mu.Unlock()
	answered := rec.Header().Get("Traceparent")
	if sent := backend.metadata.Get("traceparent"); len(sent) != 1 || sent[0][:36] != answered[:36] || !strings.HasSuffix(sent[0], "-00") ||
		!strings.HasPrefix(answered, "00-4bf92f3577b34da6a3ce929d0e0e4736-") || !strings.HasSuffix(answered, "-00") {
		t.Fatalf("traceparent: sent %v, answered %q", sent, answered)
	}
	if ended := recorder.Ended(); len(ended) != 0 {
		t.Errorf("%d spans recorded", len(ended))
	}
}
