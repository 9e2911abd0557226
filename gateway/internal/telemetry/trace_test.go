package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// The request's span as the handler sees it, with the headers the gateway forwarded and answered.
func serveTraced(t *testing.T, headers map[string][]string) (sc trace.SpanContext, forwarded, answered http.Header) {
	t.Helper()
	if _, err := SetupTracing(context.Background(), func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	observer := &Observer{Metrics: NewMetrics(), Logger: slog.New(slog.DiscardHandler), AccessLog: "all"}
	handler := observer.Route("/test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc, forwarded = trace.SpanContextFromContext(r.Context()), r.Header.Clone()
	}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for k, v := range headers {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	return sc, forwarded, w.Header()
}

func TestAValidTraceIsContinued(t *testing.T) {
	sc, forwarded, answered := serveTraced(t, map[string][]string{
		"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		"Tracestate":  {"congo=t61rcWkgMzE, rojo=00f067aa0ba902b7"},
	})
	if sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || sc.SpanID().String() == "00f067aa0ba902b7" || !sc.IsSampled() {
		t.Fatalf("span %v", sc)
	}
	if got := sc.TraceState().String(); got != "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7" {
		t.Errorf("tracestate %q", got)
	}
	if got := answered.Get("Traceparent"); got != "00-4bf92f3577b34da6a3ce929d0e0e4736-"+sc.SpanID().String()+"-01" {
		t.Errorf("answered %q", got)
	}
	// The server hears of the trace from the gRPC call's span, not from forwarded headers.
	if forwarded.Get("Traceparent") != "" || forwarded.Get("Tracestate") != "" {
		t.Errorf("forwarded the caller's trace headers: %v", forwarded)
	}
}

func TestAMalformedOrUnknownTraceStartsAFreshOne(t *testing.T) {
	const callers = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, headers := range []map[string][]string{
		{},
		{"Traceparent": {"00-<script>-00f067aa0ba902b7-01"}, "Tracestate": {"congo=t61rcWkgMzE"}},
		{"Traceparent": {"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}},                          // upper case
		{"Traceparent": {"00-" + callers + "-0000000000000000-01"}},                                           // zero parent
		{"Traceparent": {"00-" + callers + "-00f067aa0ba902b7-01-extra"}},                                     // trailing text
		{"Traceparent": {"ff-" + callers + "-00f067aa0ba902b7-01"}},                                           // version ff: invalid
		{"Traceparent": {"00-" + callers + "-00f067aa0ba902b7-01", "00-" + callers + "-00f067aa0ba902b8-01"}}, // two: the SDK alone takes the first
	} {
		sc, _, answered := serveTraced(t, headers)
		if !sc.IsValid() || sc.TraceID().String() == callers || sc.IsSampled() || sc.TraceState().Len() != 0 {
			t.Errorf("%v: span %v", headers, sc)
		}
		if got := answered.Get("Traceparent"); got != fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags()) {
			t.Errorf("%v: answered %q", headers, got)
		}
	}
}

// A later version is read by its first fields (W3C, "Versioning of traceparent"), as the SDK does.
func TestALaterVersionIsReadByItsFirstFields(t *testing.T) {
	for _, header := range []string{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-next"} {
		sc, _, _ := serveTraced(t, map[string][]string{"Traceparent": {header}})
		if sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !sc.IsSampled() {
			t.Errorf("%s: span %v", header, sc)
		}
	}
}

func TestTracingIsOffWithoutAnEndpoint(t *testing.T) {
	env := map[string]string{}
	getenv := func(name string) string { return env[name] }
	if ExportEndpoint(getenv) != "" {
		t.Fatal("on without an endpoint")
	}
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://collector:4318"
	if got := ExportEndpoint(getenv); got != "http://collector:4318" {
		t.Fatalf("endpoint %q", got)
	}
	env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = "http://traces:4318/v1/traces"
	if got := ExportEndpoint(getenv); got != "http://traces:4318/v1/traces" {
		t.Fatalf("traces endpoint %q", got)
	}
	env["OTEL_SDK_DISABLED"] = "true"
	if ExportEndpoint(getenv) != "" {
		t.Fatal("on while disabled")
	}
	delete(env, "OTEL_SDK_DISABLED")
	env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "grpc"
	if _, err := SetupTracing(context.Background(), getenv); err == nil {
		t.Fatal("grpc protocol accepted")
	}
	env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
	env["OTEL_TRACES_SAMPLER_ARG"] = "10%"
	if _, err := SetupTracing(context.Background(), getenv); err == nil || !strings.Contains(err.Error(), "OTEL_TRACES_SAMPLER_ARG") {
		t.Fatalf("a ratio of 10%%: %v", err)
	}
}
