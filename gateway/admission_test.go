package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// bothSlotsTaken is a gateway whose admission has two slots (perClient each client, waiting at
// most queueTimeout), both taken by slow calls that end when backend.release is closed (wg: them).
func bothSlotsTaken(t *testing.T, perClient int, queueTimeout time.Duration) (*fakeBackend, *admission, http.Handler, *sync.WaitGroup) {
	backend, g := startBackendGateway(t)
	limiter := newAdmission(2, perClient, false, queueTimeout, time.Second, prometheus.NewRegistry())
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

func TestBeyondTheLimitRequestsAreRefusedAtOnceWith503AndRetryAfter(t *testing.T) {
	backend, limiter, h, wg := bothSlotsTaken(t, 2, 20*time.Millisecond)
	start := time.Now()
	rec, body := do(t, h, "GET", "/api/v1/issues/abc", nil)
	waited := time.Since(start)
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || body.Code != 14 ||
		!strings.Contains(compact(rec), `"reason":"OVERLOADED"`) {
		t.Errorf("refusal: %d %v %s", rec.Code, rec.Header(), compact(rec))
	}
	if waited > time.Second {
		t.Errorf("refused after %v: it waited for the slow calls", waited)
	}
	var shed dto.Metric
	if err := limiter.shed.Write(&shed); err != nil || shed.GetCounter().GetValue() != 1 {
		got := shed.GetCounter().GetValue()
		t.Errorf("shed counter %v", got)
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

func TestNoMoreWaitThanSlotsFreeWithinTheQueueTimeout(t *testing.T) {
	for _, c := range []struct {
		limit       int64
		hold        time.Duration
		wantWaiting int64
	}{
		{32, 0, 32},                    // nothing served yet
		{32, time.Millisecond, 32},     // five turnovers in 5 ms: as many as the limit
		{32, 20 * time.Millisecond, 8}, // a quarter of the slots free in 5 ms
		{32, 21 * time.Millisecond, 8}, // rounded up
		{4, time.Second, 1},            // always one
	} {
		if got := waitersWithin(c.limit, 5*time.Millisecond, c.hold); got != c.wantWaiting {
			t.Errorf("limit %d, hold %v: %d may wait, want %d", c.limit, c.hold, got, c.wantWaiting)
		}
	}
}

func TestARequestThatCouldNotGetASlotInTimeIsRefusedAtOnce(t *testing.T) {
	backend, limiter, h, wg := bothSlotsTaken(t, 4, 2*time.Second)
	if got := limiter.maxWaiting(); got != 2 {
		t.Fatalf("before any request was served %d may wait, want the limit, 2", got)
	}
	// Requests have been holding their slots for 10 s: in the 2 s queue one slot may free.
	limiter.observeHold(10 * time.Second)
	wg.Add(1)
	go func() {
		defer wg.Done()
		do(t, h, "GET", "/api/v1/issues/abc", nil) // waits for a slot
	}()
	waitUntil(t, "a waiter", func() bool { return limiter.waiting.Load() == 1 })
	if rec, _ := do(t, h, "GET", "/api/v1/issues/abc", nil); rec.Code != 503 || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("a second waiter, where one slot may free in time: %d %s", rec.Code, compact(rec))
	}
	if limiter.waiting.Load() != 1 {
		t.Errorf("the second was refused only after the first stopped waiting: it waited too")
	}
	close(backend.release)
	wg.Wait()
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

func TestTheAdaptiveLimitShrinksWithQueueingAndGrowsWithout(t *testing.T) {
	if got := nextAdaptiveLimit(40, time.Millisecond, 10*time.Millisecond, 2, 100); got >= 40 {
		t.Errorf("latency ten times the shortest: limit %v, want < 40", got)
	}
	if got := nextAdaptiveLimit(10, time.Millisecond, time.Millisecond, 2, 100); got <= 10 {
		t.Errorf("no queueing: limit %v, want > 10", got)
	}
	if got := nextAdaptiveLimit(2, time.Millisecond, time.Second, 2, 100); got < 2 || got >= 3 {
		t.Errorf("never below the minimum: %v", got)
	}
	l := newAdaptiveLimit(64)
	for i := 0; i < adaptiveWindowCalls; i++ {
		l.observe(time.Millisecond, true) // the best window
	}
	for i := 0; i < 40*adaptiveWindowCalls; i++ {
		l.observe(20*time.Millisecond, true) // twenty times slower: queueing, the limit falls
	}
	if l.current() > 8 {
		t.Errorf("limit %d after forty slow windows", l.current())
	}
}

func TestAdaptiveLimitComparesWritesWithWritesAndReadsWithReads(t *testing.T) {
	l := newAdaptiveLimit(64)
	for i := 0; i < 10*adaptiveWindowCalls; i++ {
		l.observe(500*time.Microsecond, false) // fast reads
	}
	for i := 0; i < 40*adaptiveWindowCalls; i++ {
		l.observe(5*time.Millisecond, true) // writes at their own steady latency: no queueing
	}
	if l.current() < 32 {
		t.Errorf("limit %d: writes ten times slower than reads were taken for queueing", l.current())
	}
	for i := 0; i < 40*adaptiveWindowCalls; i++ {
		l.observe(10*time.Millisecond, false) // reads twenty times slower than their best: queueing
	}
	if l.current() > 8 {
		t.Errorf("limit %d after forty slow read windows", l.current())
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
	limiter := newAdmission(1, 1, false, 0, time.Second, prometheus.NewRegistry())
	previous := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	t.Cleanup(func() { slog.SetDefault(previous) })
	r := httptest.NewRequest("GET", "/api/v1/rooms", nil)
	w := &discardWriter{header: http.Header{}}
	allocs := testing.AllocsPerRun(1000, func() {
		clear(w.header)
		limiter.refuse(w, r, "peer 192.0.2.1")
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per refusal", allocs)
	}
}

type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
