package main

import (
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// bothSlotsTaken is a gateway whose admission has two slots, both taken by slow calls that end
// when backend.release is closed (wg: them).
func bothSlotsTaken(t *testing.T) (*fakeBackend, *admission, http.Handler, *sync.WaitGroup) {
	backend, g := startBackendGateway(t)
	limiter := newAdmission(2, time.Second, prometheus.NewRegistry())
	g.calls = limiter
	h := g.handler()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(t, h, "GET", "/api/v1/issues/slow", nil)
		}()
	}
	waitUntil(t, "both slots taken", func() bool { return len(limiter.slots) == 2 })
	return backend, limiter, h, &wg
}

// withTimeout is a request with a Grpc-Timeout header.
func withTimeout(h http.Handler, path, timeout string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Grpc-Timeout", timeout)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestARequestThatCannotBeServedInItsDeadlineIsRefusedAtOnceWith503AndRetryAfter(t *testing.T) {
	backend, limiter, h, wg := bothSlotsTaken(t)
	// Requests have been holding their slots for 10 s: a request with 1 s left cannot be served.
	limiter.observeHold(10 * time.Second)
	start := time.Now()
	rec := withTimeout(h, "/api/v1/issues/abc", "1S")
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(compact(rec), `"reason":"OVERLOADED"`) {
		t.Errorf("refusal: %d %v %s", rec.Code, rec.Header(), compact(rec))
	}
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Errorf("refused after %v: it waited though it could not be served", waited)
	}
	var shed dto.Metric
	if err := limiter.shed.Write(&shed); err != nil || shed.GetCounter().GetValue() != 1 {
		t.Errorf("shed counter %v", shed.GetCounter().GetValue())
	}
	// Probes are never limited, even while every slot is taken.
	if rec, _ := do(t, h, "GET", "/api/v1/health/live", nil); rec.Code != 200 {
		t.Errorf("liveness while full: %d", rec.Code)
	}
	close(backend.release)
	wg.Wait()
	if rec, _ := do(t, h, "GET", "/api/v1/issues/abc", nil); rec.Code != 200 {
		t.Errorf("after the burst: %d %s", rec.Code, compact(rec))
	}
}

func TestARequestThatCanBeServedInItsDeadlineWaitsForASlot(t *testing.T) {
	backend, limiter, h, wg := bothSlotsTaken(t)
	served := make(chan int)
	go func() { served <- withTimeout(h, "/api/v1/issues/abc", "30S").Code }()
	waitUntil(t, "a waiter", func() bool { return limiter.waiting.Load() == 1 })
	close(backend.release)
	if code := <-served; code != 200 {
		t.Errorf("the waiter got %d, want it served once a slot freed", code)
	}
	wg.Wait()
}

func TestExpectedWaitGrowsWithTheLineAndTheHoldTime(t *testing.T) {
	for _, c := range []struct {
		waiting int64
		limit   int
		hold    time.Duration
		want    time.Duration
	}{
		{1, 64, 0, 0}, // nothing served yet: no estimate
		{64, 64, 10 * time.Millisecond, 10 * time.Millisecond},
		{640, 64, 10 * time.Millisecond, 100 * time.Millisecond},
		{1, 0, time.Millisecond, time.Duration(math.MaxInt64)}, // no slots: never served
	} {
		if got := expectedWait(c.waiting, c.limit, c.hold); got != c.want {
			t.Errorf("%d waiting for %d slots held %v: %v, want %v", c.waiting, c.limit, c.hold, got, c.want)
		}
	}
}

func TestAServerRefusalKeepsItsRetryAfter(t *testing.T) {
	_, h := startBackend(t)
	rec, body := do(t, h, "GET", "/api/v1/issues/overloaded", nil)
	if rec.Code != 503 || body.Code != 14 || !strings.Contains(compact(rec), `"reason":"OVERLOADED"`) {
		t.Fatalf("got %d %s", rec.Code, compact(rec))
	}
	if got := rec.Header().Get("Retry-After"); got != "3" { // 2500 ms, rounded up to whole seconds
		t.Errorf("Retry-After %q", got)
	}
}

func TestGrpcTimeoutHeaderBecomesTheCallsDeadline(t *testing.T) {
	backend, h := startBackend(t)
	req := httptest.NewRequest("GET", "/api/v1/issues/slow", nil)
	req.Header.Set("Grpc-Timeout", "50m")
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	if rec.Code != 504 || time.Since(start) > time.Second {
		t.Errorf("got %d after %v", rec.Code, time.Since(start))
	}
	close(backend.release)
}

func TestWhileDrainingReadinessFailsAndEverythingElseIsServed(t *testing.T) {
	_, g := startBackendGateway(t)
	h := g.handler()
	g.drain.start()
	rec, body := do(t, h, "GET", "/api/v1/health", nil)
	if rec.Code != 503 || body.Code != 14 || !strings.Contains(compact(rec), `"reason":"SHUTTING_DOWN"`) {
		t.Errorf("readiness while draining: %d %s", rec.Code, compact(rec))
	}
	if rec, _ := do(t, h, "GET", "/api/v1/health/live", nil); rec.Code != 200 {
		t.Errorf("liveness while draining: %d", rec.Code)
	}
	if rec, _ := do(t, h, "GET", "/api/v1/issues/abc", nil); rec.Code != 200 {
		t.Errorf("a request while draining: %d %s", rec.Code, compact(rec))
	}
}

func TestRefusalsAreLoggedAsOneSummaryLineASecondAtMost(t *testing.T) {
	var out strings.Builder
	previous := slog.Default()
	slog.SetDefault(slog.New(newLogHandler(&out, slog.LevelInfo)))
	t.Cleanup(func() { slog.SetDefault(previous) })
	var s refusalSummary
	start := time.Unix(1_800_000_000, 0)
	for i := 0; i < 5000; i++ { // 5,000 refusals in 2.5 s
		s.note(start.Add(time.Duration(i) * 500 * time.Microsecond))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines for 2.5 s of refusals:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[0], `"refused":1`) || !strings.Contains(lines[1], `"refused":2000,"since_ms":1000`) {
		t.Errorf("lines:\n%s", out.String())
	}
}

func TestARefusalAllocatesNothingOfItsOwn(t *testing.T) {
	limiter := newAdmission(1, time.Second, prometheus.NewRegistry())
	previous := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slog.SetDefault(previous) })
	r := httptest.NewRequest("GET", "/api/v1/rooms", nil)
	w := &discardWriter{header: http.Header{}}
	allocs := testing.AllocsPerRun(1000, func() {
		clear(w.header)
		limiter.refuse(w, r)
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per refusal", allocs)
	}
}

type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
