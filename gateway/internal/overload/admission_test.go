package overload

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
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

// bothSlotsTaken is an admission of two slots (floor and ceiling), both taken by calls that end
// when release is closed (wg: them).
func bothSlotsTaken(t *testing.T, policy QueuePolicy) (a *Admission, h http.Handler, release chan struct{}, wg *sync.WaitGroup) {
	a = NewAdmission(2, 2, policy, time.Second, prometheus.NewRegistry())
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
	waitUntil(t, "both slots taken", func() bool { return a.inFlightNow.Load() == 2 })
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

func queued(a *Admission) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue)
}

// standing makes the admission's queue stand: its last interval's shortest wait was long, and that
// interval is over.
func standing(t *testing.T, a *Admission) {
	a.mu.Lock()
	now := time.Now()
	a.standing = standingQueue{intervalStart: now, shortest: time.Second, stands: true}
	a.mu.Unlock()
	waitUntil(t, "the interval to pass", func() bool { return time.Since(now) > 2*a.policy.Interval })
}

// holding makes the admission believe calls hold their slot for d.
func holding(a *Admission, d time.Duration) { a.limit.hold.Store(int64(d)) }

// behindAStandingQueue is bothSlotsTaken with a queue already standing, a longest wait of maxWait
// and slots held for hold each (two slots: the n-th in line expects to wait n × hold / 2).
func behindAStandingQueue(t *testing.T, maxWait, hold time.Duration) (*Admission, http.Handler, chan struct{}, *sync.WaitGroup) {
	a, h, release, wg := bothSlotsTaken(t, QueuePolicy{Target: time.Millisecond, Interval: time.Millisecond, MaxWait: maxWait})
	standing(t, a)
	holding(a, hold)
	return a, h, release, wg
}

// queueOne sends one request with a long deadline behind the taken slots and returns, once it
// waits in line, where its status code will arrive.
func queueOne(t *testing.T, a *Admission, h http.Handler) <-chan int {
	code := make(chan int, 1)
	n := queued(a) + 1
	go func() { code <- within(h, time.Minute).Code }()
	waitUntil(t, "the waiter in line", func() bool { return queued(a) == n })
	return code
}

func TestARequestThatCannotBeServedInItsDeadlineIsRefusedAtOnceWith503AndRetryAfter(t *testing.T) {
	a, h, release, wg := bothSlotsTaken(t, DefaultQueuePolicy)
	// Requests have been holding their slots for 10 s: a request with 1 s left cannot be served.
	holding(a, 10*time.Second)
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
	a, h, release, wg := bothSlotsTaken(t, DefaultQueuePolicy)
	served := queueOne(t, a, h)
	close(release)
	if code := <-served; code != 200 {
		t.Errorf("the waiter got %d, want it served once a slot freed", code)
	}
	wg.Wait()
}

// While the queue stands, a request whose expected wait passes MaxWait is refused at once even
// with a long deadline; one within it waits and is served.
func TestAStandingQueueRefusesAtOnceWhatWouldWaitPastItsLongestWait(t *testing.T) {
	// The n-th in line waits n × 100 ms.
	a, h, release, wg := behindAStandingQueue(t, 450*time.Millisecond, 200*time.Millisecond)
	var waiters []<-chan int
	for range 4 { // expected waits 100 to 400 ms: all within MaxWait
		waiters = append(waiters, queueOne(t, a, h))
	}
	start := time.Now()
	if rec := within(h, time.Minute); rec.Code != 503 {
		t.Errorf("the fifth in line (expected wait 500 ms over a 450 ms longest wait): %d", rec.Code)
	}
	if waited := time.Since(start); waited > 200*time.Millisecond {
		t.Errorf("refused after %v, not at arrival", waited)
	}
	close(release)
	for _, waiter := range waiters {
		if code := <-waiter; code != 200 {
			t.Errorf("a waiter within the longest wait got %d", code)
		}
	}
	wg.Wait()
}

// The refusal is decided on arrival: a queued request whose slot comes a little after the bound
// (the estimate was short) is served, not refused late.
func TestAQueuedRequestIsServedWhenItsEstimateWasShortNotRefusedLate(t *testing.T) {
	// The first in line expects 10 ms.
	a, h, release, wg := behindAStandingQueue(t, 50*time.Millisecond, 20*time.Millisecond)
	served := queueOne(t, a, h)
	time.Sleep(75 * time.Millisecond) // the slot comes after the 50 ms bound, within twice it
	close(release)
	if code := <-served; code != 200 {
		t.Errorf("a request queued within the bound whose slot came late got %d", code)
	}
	wg.Wait()
}

// A queued request whose client goes leaves the queue and takes no slot.
func TestAQueuedRequestWhoseClientGoesLeavesTheQueue(t *testing.T) {
	a, h, release, wg := bothSlotsTaken(t, DefaultQueuePolicy)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/fast", nil).WithContext(ctx))
		close(done)
	}()
	waitUntil(t, "a waiter", func() bool { return queued(a) == 1 })
	cancel()
	<-done
	if n := queued(a); n != 0 {
		t.Errorf("%d still queued", n)
	}
	close(release)
	wg.Wait()
	if n := a.inFlightNow.Load(); n != 0 {
		t.Errorf("%d slots still taken", n)
	}
}

func TestTheQueueStandsOnlyWhenEveryWaitOfAnIntervalPassedTheTarget(t *testing.T) {
	p := QueuePolicy{Target: 5 * time.Millisecond, Interval: 100 * time.Millisecond}
	var s standingQueue
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s.observe(10*time.Millisecond, at(0), p)
	s.observe(20*time.Millisecond, at(50), p)
	if !s.is(at(100), p) {
		t.Errorf("every wait of the interval above the target: not standing")
	}
	s.observe(time.Millisecond, at(150), p) // one short wait: a burst that drained
	s.observe(30*time.Millisecond, at(180), p)
	if s.is(at(200), p) {
		t.Errorf("a wait under the target in the interval: still standing")
	}
}

func TestTheLimitShrinksWhenHoldsRiseAndGrowsBackWhenTheyFall(t *testing.T) {
	l := NewAdaptiveLimit(4, 64)
	now := time.Unix(1_800_000_000, 0)
	feed := func(hold time.Duration, windows int) {
		for range windows {
			for i := range limitWindowMin {
				now = now.Add(limitWindow / limitWindowMin)
				l.Observe(hold, l.Current(), now.Add(time.Duration(i)))
			}
		}
	}
	feed(10*time.Millisecond, 20)
	steady := l.Current()
	feed(100*time.Millisecond, 30) // the server queues: holds ten times longer
	shrunk := l.Current()
	if shrunk >= steady/2 {
		t.Errorf("limit %d after holds rose tenfold (was %d)", shrunk, steady)
	}
	if shrunk < 4 {
		t.Errorf("limit %d under its floor", shrunk)
	}
	feed(10*time.Millisecond, 60)
	if grown := l.Current(); grown <= shrunk {
		t.Errorf("limit %d after holds fell back (was %d)", grown, shrunk)
	}
}

func TestAnUnusedLimitDoesNotGrow(t *testing.T) {
	l := NewAdaptiveLimit(4, 64)
	l.set(16)
	now := time.Unix(1_800_000_000, 0)
	for range 20 * limitWindowMin {
		now = now.Add(limitWindow / limitWindowMin)
		l.Observe(10*time.Millisecond, 1, now) // one call in flight at a time
	}
	if l.Current() > 16 {
		t.Errorf("limit grew to %d with one call in flight", l.Current())
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
	limiter := NewAdmission(1, 1, DefaultQueuePolicy, time.Second, prometheus.NewRegistry())
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
