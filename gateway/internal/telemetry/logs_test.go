package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

func goldenLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(NewLogHandler(buf, slog.LevelDebug))
}

// The golden lines pin the shape both processes write (server/tests/unit/log_test.cc pins the
// server's): docs/operations.md, "Logs". Compared as JSON values; the timestamp by its format.
func TestLogLineGolden(t *testing.T) {
	var buf bytes.Buffer
	logger := goldenLogger(&buf)
	ctx := testSpanContext()
	ctx = context.WithValue(ctx, stateKey{}, &requestState{id: "req-1"})
	logger.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("http.request.method", "GET"),
		slog.String("http.route", "/api/v1/rooms/{number}"), slog.Int("http.response.status_code", 200),
		slog.Float64("duration_ms", 1.212))
	logger.Warn("shutting down", "delay_ms", 5000)
	want := []string{`{"severity_text":"INFO","severity_number":9,"body":"request",` +
		`"service.name":"hotel-gateway","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7",` +
		`"request_id":"req-1","http.request.method":"GET","http.route":"/api/v1/rooms/{number}",` +
		`"http.response.status_code":200,"duration_ms":1.212}`,
		`{"severity_text":"WARN","severity_number":13,"body":"shutting down",` +
			`"service.name":"hotel-gateway","delay_ms":5000}`}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("log lines:\n%s", buf.String())
	}
	timestamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for i, line := range lines {
		var got, wanted map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err, line)
		}
		_ = json.Unmarshal([]byte(want[i]), &wanted)
		if ts, _ := got["timestamp"].(string); !timestamp.MatchString(ts) {
			t.Errorf("timestamp %q", ts)
		}
		delete(got, "timestamp")
		if !reflect.DeepEqual(got, wanted) {
			t.Errorf("line %d:\n got %s\nwant %s", i, line, want[i])
		}
	}
}

func TestLogSeverities(t *testing.T) {
	var buf bytes.Buffer
	logger := goldenLogger(&buf)
	logger.Debug("d")
	logger.Error("e")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, want := range []struct {
		text   string
		number float64
	}{{"DEBUG", 5}, {"ERROR", 17}} {
		var line map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &line); err != nil {
			t.Fatal(err)
		}
		if line["severity_text"] != want.text || line["severity_number"] != want.number {
			t.Errorf("line %d: %v", i, line)
		}
	}
}

// The request line carries the trace the response names.
func TestRequestLineCarriesTheResponsesTrace(t *testing.T) {
	var buf bytes.Buffer
	observer := &Observer{Metrics: NewMetrics(), Logger: goldenLogger(&buf), AccessLog: "all"}
	handler := observer.Route("/api/v1/health", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	req := httptest.NewRequest(http.MethodGet, "/api/v1/health", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatal(err, buf.String())
	}
	answered := rec.Header().Get("Traceparent")
	if line["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || answered != "00-4bf92f3577b34da6a3ce929d0e0e4736-"+line["span_id"].(string)+"-01" {
		t.Fatalf("line %v, traceparent %q", line, answered)
	}
	if line["http.response.status_code"] != float64(204) || line["request_id"] != rec.Header().Get("X-Request-Id") {
		t.Fatalf("line %v", line)
	}
}

// The sampled mode keeps every error and slow answer and one in a hundred of the rest, counting
// from the first; the other modes keep all, 5xx only or nothing.
func TestAccessLogModes(t *testing.T) {
	sampled := &Observer{AccessLog: "sampled"}
	kept := 0
	for range 250 {
		if sampled.logs(http.StatusOK, time.Millisecond) {
			kept++
		}
	}
	if kept != 3 {
		t.Errorf("sampled: kept %d of 250 fast successes, want 3", kept)
	}
	for _, c := range []struct {
		mode   string
		status int
		took   time.Duration
		want   bool
	}{
		{"sampled", http.StatusNotFound, time.Millisecond, true},
		{"sampled", http.StatusServiceUnavailable, time.Millisecond, true},
		{"sampled", http.StatusOK, accessLogSlow, true},
		{"all", http.StatusOK, time.Millisecond, true},
		{"errors", http.StatusNotFound, time.Millisecond, false},
		{"errors", http.StatusBadGateway, time.Millisecond, true},
		{"off", http.StatusBadGateway, time.Second, false},
	} {
		if got := (&Observer{AccessLog: c.mode}).logs(c.status, c.took); got != c.want {
			t.Errorf("%s: %d after %v logged %v, want %v", c.mode, c.status, c.took, got, c.want)
		}
	}
}

func BenchmarkRequestLine(b *testing.B) {
	logger := slog.New(NewLogHandler(io.Discard, slog.LevelInfo))
	ctx := testSpanContext()
	ctx = context.WithValue(ctx, stateKey{}, &requestState{id: "0af7651916cd43dd8448eb211c80319c"})
	b.ReportAllocs()
	for b.Loop() {
		logger.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("http.request.method", "GET"),
			slog.String("http.route", "/api/v1/rooms/{number}"), slog.Int("http.response.status_code", 200),
			slog.Float64("duration_ms", 1.212))
	}
}

// testSpanContext is a context with the span 00f067aa0ba902b7 of trace 4bf92f3577b34da6a3ce929d0e0e4736.
func testSpanContext() context.Context {
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	return trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
}
