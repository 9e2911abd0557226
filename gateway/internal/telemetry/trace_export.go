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
	collectors       []prometheus.Collector
}

func newCountingExporter(exporter sdktrace.SpanExporter) *countingExporter {
	dropped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_dropped_total",
		Help: "Spans not exported: export_failed (their batch was not accepted by the trace backend).",
	}, []string{"reason"})
	exported := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_exported_total",
		Help: "Spans the trace backend accepted.",
	})
	return &countingExporter{SpanExporter: exporter, exported: exported,
		failed: dropped.WithLabelValues("export_failed"), collectors: []prometheus.Collector{dropped, exported}}
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

func (e *countingExporter) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range e.collectors {
		c.Describe(ch)
	}
}

func (e *countingExporter) Collect(ch chan<- prometheus.Metric) {
	for _, c := range e.collectors {
		c.Collect(ch)
	}
}
