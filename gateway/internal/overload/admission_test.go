package overload

import (
	"bytes"
	"context"
	"encoding/json"
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

	"hotel/gateway/internal/telemetry"
)

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	_ = c.Write(&m)
	return m.GetCounter().GetValue()
}

// bothSlotsTaken is an admission of two slots, both taken by calls that end when release is
// closed (wg: them).
func bothSlotsTaken(t *testing.T) (a *Admission, h http.Handler, release chan struct{}, wg *sync.WaitGroup) {
	a = NewAdmission(2, time.Second, prometheus.NewRegistry())
	release = make(chan struct{})
	h = a.Limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
	}))
	wg = &sync.WaitGroup{}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/slow", nil))
		}()
	}
	waitUntil(t, "both slots taken", func() bool { return len(a.slots) == 2 })
	return a, h, release, wg
}

// within serves a request whose deadline is timeout from now.
func within(h http.Handler, timeout time.Duration) *httptest.ResponseRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/fast", nil).WithContext(ctx))
	return rec
}

func TestARequestThatCannotBeServedInItsDeadlineIsRefusedAtOnceWith503AndRetryAfter(t *testing.T) {
	a, h, release, wg := bothSlotsTaken(t)
	// Requests have been holding their slots for 10 s: a request with 1 s left cannot be served.
	a.observeHold(10 * time.Second)
	start := time.Now()
	rec := within(h, time.Second)
	var body bytes.Buffer
	_ = json.Compact(&body, rec.Body.Bytes())
	if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(body.String(), `"reason":"OVERLOADED"`) {
		t.Errorf("refusal: %d %v %s", rec.Code, rec.Header(), body.String())
	}
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Errorf("refused after %v: it waited though it could not be served", waited)
	}
	if shed := counterValue(a.shed); shed != 1 {
		t.Errorf("shed counter %v", shed)
	}
	close(release)
	wg.Wait()
	if rec := within(h, time.Second); rec.Code != 200 {
		t.Errorf("after the burst: %d", rec.Code)
	}
}

func TestARequestThatCanBeServedInItsDeadlineWaitsForASlot(t *testing.T) {
	a, h, release, wg := bothSlotsTaken(t)
	served := make(chan int)
	go func() { served <- within(h, 30*time.Second).Code }()
	waitUntil(t, "a waiter", func() bool { return a.waiting.Load() == 1 })
	close(release)
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

func TestRefusalsAreLoggedAsOneSummaryLineASecondAtMost(t *testing.T) {
	var out strings.Builder
	previous := slog.Default()
	slog.SetDefault(slog.New(telemetry.NewLogHandler(&out, slog.LevelInfo)))
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
	limiter := NewAdmission(1, time.Second, prometheus.NewRegistry())
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
