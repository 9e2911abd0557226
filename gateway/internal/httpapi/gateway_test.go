package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
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
	"hotel/gateway/internal/apirequest"
	"hotel/gateway/internal/changestream"
	"hotel/gateway/internal/config"
	"hotel/gateway/internal/telemetry"
	"hotel/gateway/internal/uploads"
)

// newTestHandler wires the real mux and handlers to a backend address where nothing listens.
func newTestHandler(t *testing.T) http.Handler {
	t.Helper()
	return newTestGateway(t, newTestMux(t)).Handler()
}

func newTestMux(t *testing.T) *runtime.ServeMux {
	t.Helper()
	return muxTo(t, "127.0.0.1:1", hotelv1.RegisterRoomServiceHandler, hotelv1.RegisterHealthServiceHandler)
}

// muxTo is a mux with the handlers of the given services, over a client connection to addr.
func muxTo(t *testing.T, addr string, services ...func(context.Context, *runtime.ServeMux, *grpc.ClientConn) error) *runtime.ServeMux {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), telemetry.GRPCClientTracing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	mux := NewServeMux()
	for _, register := range services {
		if err := register(context.Background(), mux, conn); err != nil {
			t.Fatal(err)
		}
	}
	return mux
}

// newTestGateway is the gateway main builds (default settings, a 2 s request timeout) over mux.
func newTestGateway(t *testing.T, mux *runtime.ServeMux) *Gateway {
	t.Helper()
	cfg, err := config.Load([]string{"--request-timeout", "2s"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, mux, changestream.Clients{}, slog.New(slog.NewJSONHandler(io.Discard, nil)))
}

func fakeServerMetrics(context.Context) (string, error) {
	return "hotel_server_build_info{version=\"test\"} 1\n", nil
}

type errorBody struct {
	Code    int               `json:"code"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

func do(t *testing.T, h http.Handler, method, target string, body io.Reader) (*httptest.ResponseRecorder, errorBody) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, body))
	var parsed errorBody
	_ = json.Unmarshal(rec.Body.Bytes(), &parsed)
	return rec, parsed
}

func reasonsAndFields(t *testing.T, st *status.Status) (reasons, fields []string) {
	t.Helper()
	for _, d := range st.Details() {
		switch v := d.(type) {
		case *errdetails.ErrorInfo:
			reasons = append(reasons, v.Reason)
		case *errdetails.BadRequest:
			for _, fv := range v.FieldViolations {
				fields = append(fields, fv.Field)
			}
		}
	}
	return
}

func TestQueryParseErrorsNameTheParameter(t *testing.T) {
	for param, value := range map[string]string{"floor": "abc", "category": "PENTHOUSE", "available": "maybe"} {
		var req hotelv1.ListRoomsRequest
		err := (&apirequest.QueryParser{}).Parse(&req, url.Values{param: {value}}, utilities.NewDoubleArray(nil))
		if err == nil {
			t.Fatalf("%s=%s: expected a parse error", param, value)
		}
		st := apierror.WithDetails(status.New(codes.InvalidArgument, err.Error()))
		reasons, fields := reasonsAndFields(t, st)
		if len(fields) != 1 || fields[0] != param {
			t.Errorf("%s=%s: fields %v from %q", param, value, fields, err)
		}
		if len(reasons) != 1 || reasons[0] != "INVALID_ARGUMENT" {
			t.Errorf("%s: reasons %v", param, reasons)
		}
	}
}

func TestAnUnknownQueryParameterIsNamed(t *testing.T) {
	h := newTestHandler(t)
	for _, target := range []string{"/api/v1/rooms?property_id=BER1&no_such_filter=1", "/api/v1/rooms/101?property_id=BER1&no_such_filter=",
		"/api/v1/health?no_such_filter=1", "/api/v1/rooms:batchGet?property_id=BER1&numbers=101&no_such_filter=1"} {
		rec, body := do(t, h, "GET", target, nil)
		if rec.Code != 400 || body.Code != 3 || !strings.Contains(rec.Body.String(), `"field":"no_such_filter"`) ||
			!strings.Contains(rec.Body.String(), "UNKNOWN_FIELD") {
			t.Errorf("%s: %d %s", target, rec.Code, rec.Body.String())
		}
	}
	// Every parameter the OpenAPI document lists, by its proto or JSON name, passes (to the
	// server, which is down here: 503).
	for _, target := range []string{"/api/v1/rooms?property_id=BER1&pageSize=2&page_token=x&read_mask=number&floor=1",
		"/api/v1/rooms/101?property_id=BER1&readMask=number"} {
		if rec, _ := do(t, h, "GET", target, nil); rec.Code != 503 {
			t.Errorf("%s: %d %s", target, rec.Code, rec.Body.String())
		}
	}
	// A JSON body sent with curl -d's default type (a form) is the body, not query parameters.
	rec := httptest.NewRecorder()
	form := httptest.NewRequest("PATCH", "/api/v1/rooms/101?property_id=BER1", strings.NewReader(`{"floor": 2}`))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if h.ServeHTTP(rec, form); rec.Code != 503 {
		t.Errorf("a JSON body sent as a form: %d %s", rec.Code, rec.Body.String())
	}
}

func TestEveryOperationOfTheDocumentIsKnown(t *testing.T) {
	rooms := operations["GET /api/v1/rooms"]
	if len(operations) < 60 || rooms == nil || !rooms.query["pageSize"] || !rooms.query["page_size"] ||
		operations["GET /api/v1/changes/stream"] == nil || operations["POST "+uploads.RoomImagesPath] == nil ||
		operations["POST "+uploads.RoomTypeImagesPath] == nil {
		t.Fatalf("%d operations", len(operations))
	}
}

func TestBodyErrorsAreNamedThroughTheHandler(t *testing.T) {
	h := newTestHandler(t)
	for body, field := range map[string]string{`{"property_id": "BER1", "colour": "red"}`: "colour",
		`{"property_id":"BER1"} xyz`: "body"} {
		for _, target := range []string{"POST /api/v1/rooms", "PATCH /api/v1/rooms/101?property_id=BER1"} {
			method, path, _ := strings.Cut(target, " ")
			rec, _ := do(t, h, method, path, strings.NewReader(body))
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"field":"`+field+`"`) {
				t.Errorf("%s %s: %d %s", target, body, rec.Code, rec.Body.String())
			}
		}
	}
}

func TestServerDetailsPassThroughUntouched(t *testing.T) {
	st, _ := status.New(codes.NotFound, "room 999 does not exist").
		WithDetails(&errdetails.ErrorInfo{Reason: "ROOM_NOT_FOUND", Domain: apierror.Domain})
	reasons, _ := reasonsAndFields(t, apierror.WithDetails(st))
	if len(reasons) != 1 || reasons[0] != "ROOM_NOT_FOUND" {
		t.Errorf("reasons %v", reasons)
	}
}

func TestRoutingErrors(t *testing.T) {
	h := newTestHandler(t)
	rec, body := do(t, h, "GET", "/api/v1/nothing-here", nil)
	if rec.Code != 404 || body.Code != 5 {
		t.Errorf("unknown path: %d %+v", rec.Code, body)
	}
	rec, body = do(t, h, "DELETE", "/api/v1/rooms", nil)
	if rec.Code != 405 || !strings.Contains(rec.Body.String(), "METHOD_NOT_ALLOWED") {
		t.Errorf("wrong method: %d %s", rec.Code, rec.Body.String())
	}
}

func TestBadQueryIsRefusedBeforeTheBackend(t *testing.T) {
	rec, body := do(t, newTestHandler(t), "GET", "/api/v1/rooms?floor=abc", nil)
	if rec.Code != 400 || body.Code != 3 || !strings.Contains(rec.Body.String(), `"field":"floor"`) {
		t.Errorf("got %d %s", rec.Code, rec.Body.String())
	}
}

func TestBackendDownIsUnavailable(t *testing.T) {
	rec, body := do(t, newTestHandler(t), "GET", "/api/v1/rooms/101?property_id=BER1", nil)
	if rec.Code != 503 || body.Code != 14 || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("got %d %v %s", rec.Code, rec.Header(), rec.Body.String())
	}
	if strings.Contains(rec.Body.String(), "127.0.0.1") || strings.Contains(rec.Body.String(), "dial") {
		t.Errorf("the transport error leaks to the client: %s", rec.Body.String())
	}
}

func TestOversizedBodiesAre413(t *testing.T) {
	h := newTestHandler(t)
	big := strings.Repeat("x", apierror.MaxBodyBytes+1)
	rec, _ := do(t, h, "GET", "/api/v1/rooms", strings.NewReader(big))
	if rec.Code != 413 || !strings.Contains(rec.Body.String(), "PAYLOAD_TOO_LARGE") {
		t.Errorf("with length: %d %s", rec.Code, rec.Body.String())
	}
}

func TestOpenAPIIsServed(t *testing.T) {
	rec, _ := do(t, newTestHandler(t), "GET", "/api/v1/openapi.json", nil)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Info    map[string]any `json:"info"`
		Paths   map[string]map[string]struct {
			OperationID string         `json:"operationId"`
			Responses   map[string]any `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &doc) != nil || doc.Paths["/api/v1/rooms"] == nil {
		t.Fatalf("got %d", rec.Code)
	}
	if doc.OpenAPI != "3.0.3" || doc.Info["title"] != "Hotel Data Service" || doc.Info["version"] != cmakeVersion(t) {
		t.Errorf("openapi %q, info %v", doc.OpenAPI, doc.Info)
	}
	// An open issue answers "resolved_at": null; the document must allow it.
	if resolved := doc.Components.Schemas["Issue"].Properties["resolved_at"]; resolved["nullable"] != true {
		t.Errorf("resolved_at is not nullable: %v", resolved)
	}
	create := doc.Paths["/api/v1/issues"]["post"]
	for _, code := range []string{"201", "400", "404", "409", "413", "503"} {
		if create.Responses[code] == nil {
			t.Errorf("POST /issues does not declare %s: %v", code, create.Responses)
		}
	}
	if create.Responses["200"] != nil || create.OperationID != "IssueService_CreateIssue" {
		t.Errorf("POST /issues: %s %v", create.OperationID, create.Responses)
	}
	if id := doc.Paths["/api/v1/properties/{property_id}/rooms"]["get"].OperationID; id != "RoomService_ListPropertyRooms" {
		t.Errorf("operationId %q", id)
	}
	if doc.Components.Schemas["CreateIssueRequest"].Required == nil || doc.Components.Schemas["ErrorInfo"].Properties["reason"] == nil {
		t.Errorf("create body without required fields, or no ErrorInfo schema")
	}
}

func TestRequestIDIsKeptOrMade(t *testing.T) {
	h := newTestHandler(t)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/v1/nothing", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("kept id: %q", got)
	}
	rec = httptest.NewRecorder()
	req = httptest.NewRequest("GET", "/api/v1/nothing", nil)
	req.Header.Set("X-Request-Id", "bad id with spaces")
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); len(got) != 32 {
		t.Errorf("made id: %q", got)
	}
}

func TestMetricsCountRequestsByRoute(t *testing.T) {
	g := newTestGateway(t, newTestMux(t))
	h := g.Handler()
	do(t, h, "GET", "/api/v1/rooms?floor=abc", nil)
	do(t, h, "GET", "/api/v1/rooms?floor=abc", nil)
	if rec, _ := do(t, h, "GET", "/metrics", nil); rec.Code != http.StatusNotFound {
		t.Errorf("/metrics on the API port: %d", rec.Code)
	}
	rec, _ := do(t, g.AdminHandler(fakeServerMetrics), "GET", "/metrics", nil)
	want := `hotel_gateway_requests_total{code="400",method="GET",route="/api/v1/rooms"} 2`
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %q:\n%s", want, rec.Body.String())
	}
	if !strings.Contains(rec.Body.String(), `hotel_server_build_info{version="test"} 1`) {
		t.Errorf("server metrics not appended")
	}
}

func TestOversizedHeadersAre431NamingTheHeader(t *testing.T) {
	h := newTestHandler(t)
	for _, name := range []string{"User-Agent", "Cookie", "If-Match", "X-Anything"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/api/v1/rooms", nil)
		req.Header.Set(name, strings.Repeat("a", maxHeaderBytes))
		h.ServeHTTP(rec, req)
		if rec.Code != 431 || !strings.Contains(rec.Body.String(), "HEADER_TOO_LARGE") ||
			!strings.Contains(rec.Body.String(), `"field":"`+strings.ToLower(name)+`"`) {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body.String())
		}
	}
	// Several forwarded headers, each small, over 8 KiB together.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/v1/rooms", nil)
	req.Header.Set("Cookie", strings.Repeat("c", 4000))
	req.Header.Set("User-Agent", strings.Repeat("u", 4000))
	h.ServeHTTP(rec, req)
	if rec.Code != 431 {
		t.Errorf("forwarded total: %d %s", rec.Code, rec.Body.String())
	}
}

func TestTrailingBytesAfterTheJSONBodyAre400(t *testing.T) {
	h := newTestHandler(t)
	for _, body := range []string{`{"property_id":"BER1"} xyz`, `{"a":1}{"b":2}`, `{} 1`} {
		rec, _ := do(t, h, "POST", "/api/v1/rooms", strings.NewReader(body))
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"field":"body"`) {
			t.Errorf("%q: %d %s", body, rec.Code, rec.Body.String())
		}
	}
}

// A scraper that asks for OpenMetrics gets the latency histogram's exemplars (the trace id of a
// sampled request) and the server's families in the same format; others get the text format.
func TestMetricsCarryTraceExemplarsInOpenMetrics(t *testing.T) {
	if _, err := telemetry.SetupTracing(context.Background(), func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	g := newTestGateway(t, newTestMux(t))
	req := httptest.NewRequest("GET", "/api/v1/rooms?floor=abc", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	g.Handler().ServeHTTP(httptest.NewRecorder(), req)
	server := func(context.Context) (string, error) {
		return "# HELP hotel_server_requests_total Requests.\n# TYPE hotel_server_requests_total counter\n" +
			"hotel_server_requests_total{method=\"/hotel.v1.RoomService/GetRoom\",code=\"OK\"} 3\n" +
			"# HELP hotel_server_trace_spans_exported_total Spans.\n# TYPE hotel_server_trace_spans_exported_total counter\n" +
			"hotel_server_trace_spans_exported_total{} 7\n", nil
	}
	scrape := httptest.NewRequest("GET", "/metrics", nil)
	scrape.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	rec := httptest.NewRecorder()
	g.AdminHandler(server).ServeHTTP(rec, scrape)
	body := rec.Body.String()
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/openmetrics-text") || !strings.HasSuffix(body, "# EOF\n") {
		t.Fatalf("not OpenMetrics: %q\n%s", rec.Header().Get("Content-Type"), body)
	}
	if !regexp.MustCompile(`hotel_gateway_request_duration_seconds_bucket\{method="GET",route="/api/v1/rooms",le="[0-9.e+-]+"\} 1 # \{trace_id="4bf92f3577b34da6a3ce929d0e0e4736"\}`).MatchString(body) {
		t.Errorf("no exemplar:\n%s", body)
	}
	for _, want := range []string{`hotel_server_requests_total{code="OK",method="/hotel.v1.RoomService/GetRoom"} 3`,
		"hotel_server_trace_spans_exported_total 7"} {
		if !strings.Contains(body, want) {
			t.Errorf("server metrics lack %q:\n%s", want, body)
		}
	}
	rec, _ = do(t, g.AdminHandler(server), "GET", "/metrics", nil)
	if strings.Contains(rec.Body.String(), "# {trace_id") || strings.Contains(rec.Body.String(), "# EOF") {
		t.Errorf("text format with OpenMetrics parts:\n%s", rec.Body.String())
	}
}

func TestTheConsistencyTokenCrossesTheGatewayBothWays(t *testing.T) {
	if name, ok := incomingHeader("Consistency-Token"); !ok || name != apierror.ConsistencyTokenHeader {
		t.Errorf("Consistency-Token is forwarded as %q, %v", name, ok)
	}
	ctx := runtime.NewServerMetadataContext(context.Background(), runtime.ServerMetadata{
		HeaderMD: metadata.Pairs(apierror.ConsistencyTokenHeader, "AgAAAAABAAAA")})
	rec := httptest.NewRecorder()
	if err := fromMetadata(ctx, rec, nil); err != nil || rec.Header().Get("Consistency-Token") != "AgAAAAABAAAA" {
		t.Errorf("answered %v (%v)", rec.Header(), err)
	}
}

// cmakeVersion is the service's version as CMakeLists.txt declares it (the build gives it to the
// OpenAPI document and the gateway).
func cmakeVersion(t *testing.T) string {
	text, err := os.ReadFile("../../../CMakeLists.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^project\(hotel_data_service VERSION ([0-9.]+)`).FindSubmatch(text)
	if m == nil {
		t.Fatal("no version in CMakeLists.txt")
	}
	return string(m[1])
}

func TestANullBodyIsReadAsAnEmptyObject(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/webhooks/x/ping", strings.NewReader(" null\n"))
	if st := readJSONBody(httptest.NewRecorder(), r); st != nil {
		t.Fatal(st)
	}
	if body, _ := io.ReadAll(r.Body); string(body) != "{}" {
		t.Errorf("body %q", body)
	}
}

// Through a fake backend: what the gateway sends hotel-server and how it answers what comes back.

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

	mux := muxTo(t, lis.Addr().String(), hotelv1.RegisterHealthServiceHandler, hotelv1.RegisterIssueServiceHandler)
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
