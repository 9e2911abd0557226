package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// traceBackend is an OTLP/HTTP receiver on loopback that answers with status (200 by default)
// and keeps what it accepted: the requests, decoded, their headers and a count of their spans;
// hold makes it wait before answering.
type traceBackend struct {
	mu       sync.Mutex
	status   int
	received int
	requests []*collectortrace.ExportTraceServiceRequest
	headers  []http.Header
	hold     chan struct{} // non-nil: each request waits for it to close (or for the client to go)
	arrived  chan struct{} // a request came in
	conns    atomic.Int32  // connections opened to it
}

func (b *traceBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	hold, status := b.hold, b.status
	b.mu.Unlock()
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if status != http.StatusOK {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "the backend says no\n")
		return
	}
	if r.Header.Get("Content-Encoding") == "gzip" {
		unzipped, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(unzipped)
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
	}
	var request collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &request); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	for _, rs := range request.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			b.received += len(ss.Spans)
		}
	}
	b.requests = append(b.requests, &request)
	b.headers = append(b.headers, r.Header.Clone())
	b.mu.Unlock()
	// An answer with a body (a partial success that rejected nothing) for the client to read.
	answer, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{
		PartialSuccess: &collectortrace.ExportTracePartialSuccess{ErrorMessage: "all taken"}})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(answer)
}

func (b *traceBackend) set(status int, hold chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status, b.hold = status, hold
}

// serve starts the backend on loopback (TLS when config is not nil) and answers its traces URL.
func (b *traceBackend) serve(t *testing.T, config *tls.Config) string {
	t.Helper()
	server := httptest.NewUnstartedServer(b)
	server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			b.conns.Add(1)
		}
	}
	if config != nil {
		server.TLS = config
		server.StartTLS()
	} else {
		server.Start()
	}
	t.Cleanup(server.Close)
	return server.URL + "/v1/traces"
}

// A queue exporting to a real OTLP/HTTP endpoint (the gateway's exporter) and a provider sampling everything.
func newTestExportQueue(t *testing.T, backend *traceBackend, settings exportSettings) (*exportQueue, *sdktrace.TracerProvider) {
	t.Helper()
	exporter := newOTLPExporter(otlpSettings{url: backend.serve(t, nil)})
	queue := newExportQueue(exporter, settings)
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(queue))
	t.Cleanup(func() { _ = provider.Shutdown(context.Background()) })
	return queue, provider
}

func endSpans(provider *sdktrace.TracerProvider, n int) {
	for range n {
		_, span := provider.Tracer("test").Start(context.Background(), "work")
		span.End()
	}
}

func TestSpansTheBackendRefusesAreCountedAndExportResumes(t *testing.T) {
	backend := &traceBackend{status: http.StatusServiceUnavailable, arrived: make(chan struct{}, 1)}
	queue, provider := newTestExportQueue(t, backend, exportSettings{maxQueueSize: 8, maxBatchSize: 4,
		scheduleDelay: time.Hour, exportTimeout: 5 * time.Second})
	endSpans(provider, 3)
	if err := provider.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(queue.droppedExportFailed); got != 3 {
		t.Errorf("dropped export_failed %v, want 3", got)
	}
	backend.set(http.StatusOK, nil)
	endSpans(provider, 5) // a full batch, exported at once, and one more at the flush
	if err := provider.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	backend.mu.Lock()
	defer backend.mu.Unlock()
	if got := testutil.ToFloat64(queue.exported); got != 5 || backend.received != 5 {
		t.Errorf("exported %v, backend received %d, want 5", got, backend.received)
	}
	if got := testutil.ToFloat64(queue.droppedQueueFull); got != 0 {
		t.Errorf("dropped queue_full %v", got)
	}
}

func TestSpansEndingWhileTheQueueIsFullAreDroppedAndCountedWithoutWaiting(t *testing.T) {
	backend := &traceBackend{status: http.StatusOK, arrived: make(chan struct{}, 1)}
	hold := make(chan struct{})
	backend.set(http.StatusOK, hold)
	queue, provider := newTestExportQueue(t, backend, exportSettings{maxQueueSize: 4, maxBatchSize: 2,
		scheduleDelay: time.Hour, exportTimeout: 30 * time.Second})
	endSpans(provider, 2) // a full batch: its export waits on the backend
	<-backend.arrived
	endSpans(provider, 4+3) // the queue takes 4, the 3 others are dropped: none of this waits
	if got := testutil.ToFloat64(queue.droppedQueueFull); got != 3 {
		t.Errorf("dropped queue_full %v, want 3", got)
	}
	close(hold)
	if err := provider.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(queue.exported); got != 6 {
		t.Errorf("exported %v, want 6", got)
	}
}

func TestExportSettingsComeFromTheStandardVariables(t *testing.T) {
	env := map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "4096"}
	settings, err := exportSettingsFromEnv(func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	want := exportSettings{maxQueueSize: 2048, maxBatchSize: 2048, scheduleDelay: 100 * time.Millisecond, exportTimeout: 30 * time.Second}
	if settings != want {
		t.Errorf("settings %+v, want %+v", settings, want)
	}
	env["OTEL_BSP_MAX_QUEUE_SIZE"] = "0"
	if _, err := exportSettingsFromEnv(func(name string) string { return env[name] }); err == nil {
		t.Error("a queue of 0 accepted")
	}
}
