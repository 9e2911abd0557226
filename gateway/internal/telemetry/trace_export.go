package telemetry

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

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
