package telemetry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	_ "net/http/pprof" // registers the profiles on http.DefaultServeMux, which serves nothing else
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/felixge/httpsnoop"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Metrics of the gateway, per route pattern (not per raw path, which would explode the label
// set with ids and room numbers). Every part registers its own in Registry.
type Metrics struct {
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func NewMetrics() *Metrics {
	registry := prometheus.NewRegistry()
	factory := promauto.With(registry)
	factory.NewGaugeVec(prometheus.GaugeOpts{Name: "hotel_gateway_build_info", Help: "Build information; always 1."},
		[]string{"version"}).WithLabelValues(Version).Set(1)
	// Also the collector's CPU and cycles (runtime/metrics), to see its share of the CPU under load
	// beside process_cpu_seconds_total (tests/perf/overload_bench.py reads them).
	registry.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{
			Matcher: regexp.MustCompile(`^/(cpu/classes/(gc/total|idle|total)|gc/cycles/total):`)})))
	return &Metrics{
		Registry: registry,
		requests: factory.NewCounterVec(prometheus.CounterOpts{Name: "hotel_gateway_requests_total",
			Help: "HTTP requests by method, route pattern and status code."}, []string{"method", "route", "code"}),
		duration: factory.NewHistogramVec(prometheus.HistogramOpts{Name: "hotel_gateway_request_duration_seconds",
			Help:    "HTTP request latency by method and route pattern.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
	}
}

// ServerMetricsFunc fetches the server's metrics text (MetricsService/GetMetrics).
type ServerMetricsFunc func(context.Context) (string, error)

// Serve writes the gateway's metrics and the server's (fetched over gRPC), so one scrape per pod
// covers both processes; a server that cannot be reached only loses its part. OpenMetrics, for a
// scraper that asks, carries the histograms' exemplars (docs/operations.md, "Tracing").
func (m *Metrics) Serve(w http.ResponseWriter, r *http.Request, serverMetrics ServerMetricsFunc) {
	server := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		text, err := serverMetrics(ctx)
		if err != nil {
			return nil, nil
		}
		parser := expfmt.NewTextParser(model.LegacyValidation)
		families, err := parser.TextToMetricFamilies(strings.NewReader(text))
		return slices.Collect(maps.Values(families)), err
	})
	promhttp.HandlerFor(prometheus.Gatherers{m.Registry, server},
		promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

// Version is the service's, set by the build (scripts/build-gateway.sh: -ldflags -X).
var Version = "dev"

// otherLabel stands for every method and route outside the known sets, as OpenTelemetry's HTTP
// conventions have it: label values never come from what clients send, so the series are bounded.
const otherLabel = "_OTHER"

func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return otherLabel
}

// requestState is what the observer keeps of a request while it is served: the parts after it
// name its route (RouteRecorder) and mark it shed (MarkShed); the log handler reads its id.
type requestState struct {
	route string
	id    string
	shed  bool // refused for overload: counted, not logged a line each (a summary line says how many)
}

type stateKey struct{}

func stateOf(ctx context.Context) *requestState {
	state, _ := ctx.Value(stateKey{}).(*requestState)
	return state
}

// MarkShed marks r as refused for overload.
func MarkShed(r *http.Request) {
	if state := stateOf(r.Context()); state != nil {
		state.shed = true
	}
}

// RouteRecorder is a grpc-gateway middleware: it runs after routing, so it can name the
// matched pattern for the log line and the metrics of the request. grpc-gateway wraps each
// pattern's handler apart, so the name is made once for each.
func RouteRecorder(next runtime.HandlerFunc) runtime.HandlerFunc {
	var route atomic.Pointer[string]
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if pattern, ok := runtime.HTTPPattern(r.Context()); ok && stateOf(r.Context()) != nil {
			if route.Load() == nil {
				route.Store(new(PatternRoute(pattern)))
			}
			stateOf(r.Context()).route = *route.Load()
		}
		next(w, r, params)
	}
}

// PatternRoute is a grpc-gateway pattern as the OpenAPI document writes its path:
// /api/v1/rooms/{number}.
func PatternRoute(pattern runtime.Pattern) string {
	return strings.ReplaceAll(pattern.String(), "=*}", "}")
}

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// requestID keeps a sane client-sent X-Request-Id and makes one otherwise.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); validRequestID.MatchString(id) {
		return id
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// AccessLogModes are the values of --access-log (docs/observability.md#log-volume): every request
// the gateway answers but refusals; errors (4xx, 5xx), slow answers and one in accessLogSample of
// the rest, as the server logs its calls; 5xx answers only; or none.
var AccessLogModes = []string{"all", "sampled", "errors", "off"}

// The sampled mode's numbers are the server's defaults (RPC_LOG_SAMPLE, RPC_LOG_SLOW), so that the
// two logs of one request are kept or dropped alike.
const (
	accessLogSample = 100
	accessLogSlow   = 100 * time.Millisecond
)

// Observer logs, measures and traces every request.
type Observer struct {
	Metrics   *Metrics
	Logger    *slog.Logger
	AccessLog string // one of AccessLogModes

	plainAnswers atomic.Uint64 // fast successes seen in the sampled mode
}

func (o *Observer) logs(status int, took time.Duration) bool {
	switch o.AccessLog {
	case "all":
		return true
	case "sampled":
		return status >= 400 || took >= accessLogSlow || o.plainAnswers.Add(1)%accessLogSample == 1
	case "errors":
		return status >= 500
	}
	return false
}

// Route observes every request of a route: a log line (as AccessLog says; the route pattern, never
// the path, a body or query values), its metrics and its span. The request id goes to the server
// and back to the caller, the span to the caller in Traceparent; every line logged with the
// request's context carries trace_id, span_id and request_id. label: the route table's name;
// empty: grpc-gateway's matched pattern (RouteRecorder), _OTHER if none matched.
func (o *Observer) Route(label string, next http.Handler) http.Handler {
	if label == "" {
		label = otherLabel
	}
	// otelhttp: the request's server span, the caller's trace continued when oneTraceparent
	// takes it, named by spanName.
	traced := otelhttp.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		state := stateOf(ctx)
		span := trace.SpanFromContext(ctx)
		// The server hears of the trace from the gRPC call's span, not from forwarded headers.
		r.Header.Del("Traceparent")
		r.Header.Del("Tracestate")
		state.id = requestID(r)
		r.Header.Set("X-Request-Id", state.id)
		w.Header().Set("X-Request-Id", state.id)
		answered := propagation.MapCarrier{}
		propagator.Inject(ctx, answered)
		w.Header().Set("Traceparent", answered["traceparent"])
		served := httpsnoop.CaptureMetrics(next, w, r)
		method := methodLabel(r.Method)
		if state.route != otherLabel && span.IsRecording() {
			span.SetAttributes(attribute.String("http.route", state.route))
		}
		o.Metrics.requests.WithLabelValues(method, state.route, strconv.Itoa(served.Code)).Inc()
		// A sampled (exported) trace is the latency's exemplar: a spike on a dashboard leads to a trace.
		latency := o.Metrics.duration.WithLabelValues(method, state.route)
		if sc := span.SpanContext(); sc.IsSampled() {
			latency.(prometheus.ExemplarObserver).ObserveWithExemplar(served.Duration.Seconds(),
				prometheus.Labels{"trace_id": sc.TraceID().String()})
		} else {
			latency.Observe(served.Duration.Seconds())
		}
		if state.shed || !o.logs(served.Code, served.Duration) {
			return
		}
		o.Logger.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("http.request.method", method),
			slog.String("http.route", state.route), slog.Int("http.response.status_code", served.Code),
			slog.Float64("duration_ms", float64(served.Duration.Microseconds())/1000))
	}), "", otelhttp.WithPropagators(oneTraceparent{}), otelhttp.WithSpanNameFormatter(spanName),
		otelhttp.WithMeterProvider(noMetrics))
	// The state goes into the context before the span starts: otelhttp names the span by its
	// route when the request ends (spanName).
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traced.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, &requestState{route: label})))
	})
}

// ServePprof serves Go's profiles (CPU, heap, allocations, goroutines) on a listener of their
// own, for profiling under load (docs/performance.md, "Gateway CPU"). Off unless
// GATEWAY_PPROF_ADDR is set, and loopback only: the profiles show request data and cost CPU.
func ServePprof(addr string, logger *slog.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s is not a loopback address", addr)
	}
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	logger.Info("pprof listening", "address", listener.Addr().String())
	go func() { _ = http.Serve(listener, nil) }()
	return nil
}
