package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
)

// Tracing with the OpenTelemetry Go SDK (docs/operations.md, "Tracing"): a server span per
// request (otelhttp), a client span per gRPC call (otelgrpc), exported by the batch span processor
// and otlptracehttp when an OTLP endpoint is set. Without one, ids are still made and passed on
// for the logs, the Traceparent response header and the change log.
var propagator = propagation.TraceContext{}

// ExportEndpoint is the OTLP endpoint the standard variables name, empty when tracing is off.
func ExportEndpoint(getenv func(string) string) string {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || getenv("OTEL_TRACES_EXPORTER") == "none" {
		return ""
	}
	return cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
}

// Tracing is what SetupTracing installed: Flush sends what is queued (at shutdown); Metrics are the
// exporter's counters for /metrics (none when tracing is off).
type Tracing struct {
	Flush   func(context.Context) error
	Metrics []prometheus.Collector
}

// SetupTracing installs the tracer provider and propagator. The variables read: OTEL_SERVICE_NAME
// and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG] (unset: as the server,
// parentbased_traceidratio with the ratio of _ARG, 1 by default), OTEL_BSP_* (the SDK's batch
// span processor: it never blocks a request) and OTEL_EXPORTER_OTLP_* (endpoint, headers,
// timeout, certificates; read by otlptracehttp).
func SetupTracing(ctx context.Context, getenv func(string) string) (*Tracing, error) {
	otel.SetTextMapPropagator(propagator)
	if ExportEndpoint(getenv) == "" {
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample()))))
		return &Tracing{Flush: func(context.Context) error { return nil }}, nil
	}
	// otlptracehttp speaks protobuf only, and would ignore another protocol asked for.
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := getenv(name); p != "" && p != "http/protobuf" {
			return nil, fmt.Errorf("%s: only http/protobuf is supported, got %q", name, p)
		}
	}
	// No retries: a batch the backend does not take is dropped and counted, and the next one
	// tries again (as the server does); retrying would hold the queue while new spans are dropped.
	otlp, err := otlptracehttp.New(ctx, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_*: %w", err)
	}
	exporter, exporterMetrics := newCountingExporter(otlp)
	// The default service name first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", serviceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	options := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)}
	if getenv("OTEL_TRACES_SAMPLER") == "" {
		// The server's default, parentbased_traceidratio (the SDK's, parentbased_always_on, would
		// ignore OTEL_TRACES_SAMPLER_ARG).
		ratio, err := strconv.ParseFloat(cmp.Or(getenv("OTEL_TRACES_SAMPLER_ARG"), "1"), 64)
		if err != nil || ratio < 0 || ratio > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got %q", getenv("OTEL_TRACES_SAMPLER_ARG"))
		}
		options = append(options, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))))
	}
	provider := sdktrace.NewTracerProvider(options...)
	otel.SetTracerProvider(provider)
	return &Tracing{Flush: provider.Shutdown, Metrics: exporterMetrics}, nil
}

// oneTraceparent is the SDK's W3C propagator, but for the one case it gets wrong: of several
// traceparent headers it continues the first, where W3C's test suite (test_traceparent_duplicated)
// wants a fresh trace. Everything else (version, hex case, zero ids, trailing fields, tracestate)
// is the SDK's: a later version is read by its first fields, as W3C asks.
type oneTraceparent struct{ propagation.TraceContext }

func (p oneTraceparent) Extract(ctx context.Context, carrier propagation.TextMapCarrier) context.Context {
	if values, ok := carrier.(propagation.ValuesGetter); ok && len(values.Values("traceparent")) > 1 {
		return ctx
	}
	return p.TraceContext.Extract(ctx, carrier)
}

// spanName is "<method> <route>", or the method alone for a path no route matched.
func spanName(_ string, r *http.Request) string {
	if state := stateOf(r.Context()); state != nil && state.route != otherLabel {
		return methodLabel(r.Method) + " " + state.route
	}
	return methodLabel(r.Method)
}

// GRPCClientTracing gives every call to the server made for a sampled request a client span
// (named "<service>/<method>", as the server names its RPC span) and sends the server its traceparent.
func GRPCClientTracing() grpc.DialOption {
	return grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithPropagators(propagator),
		otelgrpc.WithMeterProvider(noMetrics)))
}

// noMetrics for otelhttp and otelgrpc: the gateway's Prometheus metrics count the requests already.
var noMetrics = noop.NewMeterProvider()

// countingExporter is the OTLP exporter, counting the spans the trace backend took and those it
// did not (the SDK's batch processor drops a failed batch silently).
type countingExporter struct {
	sdktrace.SpanExporter
	exported, failed prometheus.Counter
}

// newCountingExporter wraps exporter; its counters are the collectors returned.
func newCountingExporter(exporter sdktrace.SpanExporter) (*countingExporter, []prometheus.Collector) {
	dropped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_dropped_total",
		Help: "Spans not exported: export_failed (their batch was not accepted by the trace backend).",
	}, []string{"reason"})
	exported := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_exported_total",
		Help: "Spans the trace backend accepted.",
	})
	counting := &countingExporter{SpanExporter: exporter, exported: exported, failed: dropped.WithLabelValues("export_failed")}
	return counting, []prometheus.Collector{dropped, exported}
}

func (e *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		e.failed.Add(float64(len(spans)))
	} else {
		e.exported.Add(float64(len(spans)))
	}
	return err
}
