package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

func goldenLogger(buf *bytes.Buffer) *slog.Logger {
	h := newLogHandler(buf, slog.LevelDebug)
	h.now = func() time.Time { return time.Date(2026, 11, 24, 13, 0, 5, 42_700_000, time.FixedZone("CET", 3600)) }
	return slog.New(h)
}

// The golden lines pin the shape both processes write (server/tests/unit/log_test.cc pins the
// server's): docs/operations.md, "Logs".
func TestLogLineGolden(t *testing.T) {
	var buf bytes.Buffer
	logger := goldenLogger(&buf)
	ctx := testSpanContext()
	ctx = context.WithValue(ctx, requestIDKey{}, "req-1")
	logger.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("http.request.method", "GET"),
		slog.String("http.route", "/api/v1/rooms/{number}"), slog.Int("http.response.status_code", 200),
		slog.Float64("duration_ms", 1.212))
	logger.Warn("shutting down", "delay_ms", 5000)
	want := `{"timestamp":"2026-11-24T12:00:05.042Z","severity_text":"INFO","severity_number":9,"body":"request",` +
		`"service.name":"hotel-gateway","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7",` +
		`"request_id":"req-1","http.request.method":"GET","http.route":"/api/v1/rooms/{number}",` +
		`"http.response.status_code":200,"duration_ms":1.212}` + "\n" +
		`{"timestamp":"2026-11-24T12:00:05.042Z","severity_text":"WARN","severity_number":13,"body":"shutting down",` +
		`"service.name":"hotel-gateway","delay_ms":5000}` + "\n"
	if got := buf.String(); got != want {
		t.Fatalf("log lines:\n got %s\nwant %s", got, want)
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
	handler := observe(readinessPath, newMetrics(), goldenLogger(&buf))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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

// Every kind of value is written as slog's JSON handler (which the gateway used before) writes it.
// (Not years beyond 9999: slog writes those as two strings in a row, which is not JSON.)
func TestLogValuesAsSlogWritesThem(t *testing.T) {
	type point struct{ X, Y int }
	values := []any{"", "plain", "quote \" backslash \\ tab \t nl \n cr \r nul \x00 esc \x1b del \x7f", "<html>&amp;",
		"bad \xff utf-8", "\uFFFD", "line \u2028 para \u2029", "Zimmer für zwei – 😀", 0, -42, int64(math.MaxInt64),
		uint64(math.MaxUint64), 1.212, 0.0, -0.5, 1e-7, 1e21, 123456789.0, math.NaN(), math.Inf(1), true, false,
		1500 * time.Millisecond, time.Date(2026, 11, 24, 13, 0, 5, 42_700_000, time.FixedZone("CET", 3600)),
		errors.New("boom \"x\""), point{1, 2}, []string{"a", "<b>"},
		map[string]int{"b": 1, "a": 2}, nil, func() {}}
	for _, v := range values {
		var ref bytes.Buffer
		slog.New(slog.NewJSONHandler(&ref, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		}})).Info("", "k", v)
		want := "," + strings.TrimSuffix(strings.TrimPrefix(ref.String(), "{"), "}\n")
		if got := string(appendLogAttr(nil, slog.Any("k", v))); got != want {
			t.Errorf("%#v:\n got %s\nwant %s", v, got, want)
		}
	}
}

func BenchmarkRequestLine(b *testing.B) {
	logger := slog.New(newLogHandler(io.Discard, slog.LevelInfo))
	ctx := testSpanContext()
	ctx = context.WithValue(ctx, requestIDKey{}, "0af7651916cd43dd8448eb211c80319c")
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
