package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exportSettings are the batch span processor's settings, from OpenTelemetry's OTEL_BSP_* variables.
type exportSettings struct {
	maxQueueSize  int           // OTEL_BSP_MAX_QUEUE_SIZE: spans waiting at most; more are dropped
	maxBatchSize  int           // OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per export at most
	scheduleDelay time.Duration // OTEL_BSP_SCHEDULE_DELAY (ms): longest wait of a span before export
	exportTimeout time.Duration // OTEL_BSP_EXPORT_TIMEOUT (ms): longest export
}

func exportSettingsFromEnv(getenv func(string) string) (exportSettings, error) {
	settings := exportSettings{}
	for _, v := range []struct {
		name     string
		fallback int
		set      func(int)
	}{
		{"OTEL_BSP_MAX_QUEUE_SIZE", 2048, func(n int) { settings.maxQueueSize = n }},
		{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, func(n int) { settings.maxBatchSize = n }},
		{"OTEL_BSP_SCHEDULE_DELAY", 5000, func(n int) { settings.scheduleDelay = time.Duration(n) * time.Millisecond }},
		{"OTEL_BSP_EXPORT_TIMEOUT", 30000, func(n int) { settings.exportTimeout = time.Duration(n) * time.Millisecond }},
	} {
		n := v.fallback
		if text := getenv(v.name); text != "" {
			parsed, err := strconv.Atoi(text)
			if err != nil || parsed <= 0 {
				return settings, fmt.Errorf("%s: expected a positive integer, got %q", v.name, text)
			}
			n = parsed
		}
		v.set(n)
	}
	settings.maxBatchSize = min(settings.maxBatchSize, settings.maxQueueSize)
	return settings, nil
}

// exportQueue is the span processor that exports: the SDK's BatchSpanProcessor, but counting
// what it drops (that one drops silently). An ended span waits in a bounded queue, dropped and
// counted when the queue is full, so a slow or absent backend never blocks a request; one
// goroutine exports a batch when it is full or the oldest span has waited the schedule delay.
// A batch the backend does not take is dropped and counted; the next one tries again.
// Spans are appended under a mutex and the exporting goroutine is woken only for a full batch:
// not a channel operation and a wake-up per span.
type exportQueue struct {
	exporter sdktrace.SpanExporter
	settings exportSettings

	mu      sync.Mutex
	queue   []sdktrace.ReadOnlySpan
	stopped bool

	wake    chan struct{}      // a batch is full
	flushes chan chan struct{} // ForceFlush: export everything queued, then answer
	stop    chan struct{}
	done    chan struct{}

	exported, droppedQueueFull, droppedExportFailed prometheus.Counter
	collectors                                      []prometheus.Collector
}

func newExportQueue(exporter sdktrace.SpanExporter, settings exportSettings) *exportQueue {
	dropped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_dropped_total",
		Help: "Spans not exported: queue_full (the export queue was full when the span ended), export_failed (its batch was not accepted by the trace backend).",
	}, []string{"reason"})
	exported := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hotel_gateway_trace_spans_exported_total",
		Help: "Spans the trace backend accepted.",
	})
	q := &exportQueue{
		exporter:            exporter,
		settings:            settings,
		queue:               make([]sdktrace.ReadOnlySpan, 0, settings.maxQueueSize),
		wake:                make(chan struct{}, 1),
		flushes:             make(chan chan struct{}),
		stop:                make(chan struct{}),
		done:                make(chan struct{}),
		exported:            exported,
		droppedQueueFull:    dropped.WithLabelValues("queue_full"),
		droppedExportFailed: dropped.WithLabelValues("export_failed"),
	}
	q.collectors = []prometheus.Collector{dropped, exported, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_trace_export_queue_spans", Help: "Spans waiting for export."}, q.queued)}
	go q.run()
	return q
}

func (q *exportQueue) queued() float64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return float64(len(q.queue))
}

func (*exportQueue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops and counts it when the queue is full: never waits.
func (q *exportQueue) OnEnd(span sdktrace.ReadOnlySpan) {
	if !span.SpanContext().IsSampled() {
		return
	}
	q.mu.Lock()
	if q.stopped { // the process is exiting
		q.mu.Unlock()
		return
	}
	if len(q.queue) >= q.settings.maxQueueSize {
		q.mu.Unlock()
		q.droppedQueueFull.Inc()
		return
	}
	q.queue = append(q.queue, span)
	full := len(q.queue) == q.settings.maxBatchSize
	q.mu.Unlock()
	if full {
		select {
		case q.wake <- struct{}{}:
		default: // already woken
		}
	}
}

func (q *exportQueue) run() {
	defer close(q.done)
	timer := time.NewTimer(q.settings.scheduleDelay)
	defer timer.Stop()
	batch := make([]sdktrace.ReadOnlySpan, 0, q.settings.maxBatchSize)
	for {
		var flushed chan struct{}
		stopping := false
		select {
		case <-q.wake:
		case <-timer.C:
		case flushed = <-q.flushes:
		case <-q.stop:
			stopping = true
		}
		// Everything queued goes, in batches.
		for {
			batch = q.take(batch[:0])
			if len(batch) == 0 {
				break
			}
			q.send(batch)
			if len(batch) < q.settings.maxBatchSize {
				break
			}
		}
		clear(batch[:cap(batch)]) // the spans are garbage now
		if flushed != nil {
			close(flushed)
		}
		if stopping {
			return
		}
		timer.Reset(q.settings.scheduleDelay)
	}
}

// take moves up to a batch of the oldest spans into batch.
func (q *exportQueue) take(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.queue), q.settings.maxBatchSize)
	batch = append(batch, q.queue[:n]...)
	rest := copy(q.queue, q.queue[n:])
	clear(q.queue[rest:])
	q.queue = q.queue[:rest]
	return batch
}

func (q *exportQueue) send(batch []sdktrace.ReadOnlySpan) {
	ctx, cancel := context.WithTimeout(context.Background(), q.settings.exportTimeout)
	defer cancel()
	if err := q.exporter.ExportSpans(ctx, batch); err != nil {
		q.droppedExportFailed.Add(float64(len(batch)))
		// One line per failed export at most (a batch every schedule delay): the drops are counted.
		slog.Warn("trace export failed", "error", err, "spans", len(batch))
		return
	}
	q.exported.Add(float64(len(batch)))
}

// ForceFlush exports what is queued now.
func (q *exportQueue) ForceFlush(ctx context.Context) error {
	flushed := make(chan struct{})
	select {
	case q.flushes <- flushed:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-flushed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued (one attempt), then stops the exporter. Spans ending later are
// dropped.
func (q *exportQueue) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	if q.stopped {
		q.mu.Unlock()
		return nil
	}
	q.stopped = true
	q.mu.Unlock()
	close(q.stop)
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exporter.Shutdown(ctx)
}

// Describe and Collect make the queue's counters part of the gateway's /metrics.
func (q *exportQueue) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range q.collectors {
		c.Describe(ch)
	}
}

func (q *exportQueue) Collect(ch chan<- prometheus.Metric) {
	for _, c := range q.collectors {
		c.Collect(ch)
	}
}
