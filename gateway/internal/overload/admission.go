// Package overload keeps any one client from holding what the others need, and refuses only
// what cannot be served, early: the admission of calls (an adaptive in-flight limit and a queue
// bounded in time), the shares of change streams per client, and the connections each client may
// hold (docs/deadlines-and-retries.md).
package overload

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"google.golang.org/grpc/codes"

	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apijson"
	"hotel/gateway/internal/telemetry"
)

// QueuePolicy is when a request that finds every slot taken may wait for one.
type QueuePolicy struct {
	// A queue is standing (CoDel) when the shortest wait of the requests it let in over a whole
	// Interval was above Target: the requests arrive faster than they are served, not in a burst.
	Target, Interval time.Duration
	// While the queue stands, no request waits longer than MaxWait: one that would is refused at
	// once, whether or not its client sent a deadline. A burst, before the queue stands, waits as
	// long as each request's deadline allows.
	MaxWait time.Duration
}

// DefaultQueuePolicy: CoDel's 5 ms over 100 ms; MaxWait leaves a served request time within a
// one-second deadline, and lets a burst of about half a second of work queue.
var DefaultQueuePolicy = QueuePolicyWithMaxWait(400 * time.Millisecond)

// QueuePolicyWithMaxWait is CoDel's target and interval with the given longest wait.
func QueuePolicyWithMaxWait(maxWait time.Duration) QueuePolicy {
	return QueuePolicy{Target: 5 * time.Millisecond, Interval: 100 * time.Millisecond, MaxWait: maxWait}
}

// Admission bounds the requests in flight to the server by an adaptive limit (AdaptiveLimit). A
// request that finds every slot taken joins the queue only if its expected wait (the requests
// ahead of it, the slots, and how long a request holds one) lets it be served within its deadline
// and, while the queue stands, within MaxWait; otherwise it is refused at once, 503 with
// Retry-After. A queued request leaves when its client goes or its wait runs out.
type Admission struct {
	policy          QueuePolicy
	mu              sync.Mutex
	limit           *AdaptiveLimit
	inFlight        int
	queue           []*waiter // first in, first out
	standing        standingQueue
	retryAfterValue []string // Retry-After of the gateway's own refusals, as a header value
	body            []byte   // their error body
	refusals        refusalSummary
	shed            prometheus.Counter
	queueWait       prometheus.Histogram
	inFlightNow     atomic.Int64
}

type waiter struct {
	admitted chan struct{} // closed when a slot was handed to it
	arrived  time.Time
}

// NewAdmission admits up to an adaptive limit between floor and ceiling requests at once.
func NewAdmission(floor, ceiling int, policy QueuePolicy, retryAfter time.Duration, registry *prometheus.Registry) *Admission {
	refusal := apierror.New(codes.Unavailable, "OVERLOADED", "the service is overloaded; retry after a back-off")
	body, _ := apijson.Options.Marshal(refusal.Proto())
	metrics := promauto.With(registry)
	a := &Admission{
		policy:          policy,
		limit:           NewAdaptiveLimit(floor, ceiling),
		retryAfterValue: []string{apierror.RetryAfterSeconds(retryAfter)},
		body:            body,
		shed: metrics.NewCounter(prometheus.CounterOpts{
			Name: "hotel_gateway_requests_shed_total",
			Help: "Requests the gateway answered 503 OVERLOADED itself because they could not be served within their deadline, or within the longest wait while the queue stands (the server counts its refusals in hotel_server_requests_shed_total).",
		}),
		queueWait: metrics.NewHistogram(prometheus.HistogramOpts{
			Name:    "hotel_gateway_queue_wait_seconds",
			Help:    "Time requests waited for an admission slot (those that found one free at once are not counted).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
	}
	metrics.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_requests_in_flight", Help: "Requests holding an admission slot now.",
	}, func() float64 { return float64(a.inFlightNow.Load()) })
	metrics.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_admission_limit", Help: "Requests the gateway lets in flight to the server now (adaptive, between its floor and ceiling).",
	}, func() float64 { return float64(a.limit.Current()) })
	return a
}

// Limit runs next once the request holds a slot, or answers 503 when it cannot get one in time.
func (a *Admission) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.acquire(w, r) {
			return
		}
		start := time.Now()
		defer func() { a.release(time.Since(start)) }()
		next.ServeHTTP(w, r)
	})
}

// acquire takes a slot, waiting for one if that can end in time; false: the request was answered
// (refused) or its client has gone.
func (a *Admission) acquire(w http.ResponseWriter, r *http.Request) bool {
	now := time.Now()
	a.mu.Lock()
	if len(a.queue) == 0 && a.inFlight < a.limit.Current() {
		a.standing.observe(0, now, a.policy)
		a.take()
		a.mu.Unlock()
		return true
	}
	wait, budget, ok := a.longestWait(r.Context(), now)
	if !ok || a.expectedWait(len(a.queue)+1) > wait {
		a.mu.Unlock()
		a.refuse(w, r)
		return false
	}
	me := &waiter{admitted: make(chan struct{}), arrived: now}
	a.queue = append(a.queue, me)
	a.mu.Unlock()

	// The refusal is decided on arrival; an estimate that was short is absorbed, not refused late:
	// a queued request waits up to twice the bound (within its deadline) before it gives up.
	patience := budget
	if wait < budget/2 {
		patience = 2 * wait
	}
	timer := time.NewTimer(patience)
	defer timer.Stop()
	select {
	case <-me.admitted:
		a.queueWait.Observe(time.Since(now).Seconds())
		return true
	case <-timer.C:
		if a.leave(me) {
			a.refuse(w, r)
			return false
		}
	case <-r.Context().Done():
		if a.leave(me) {
			return false // the client has gone; nobody reads an answer
		}
	}
	// A slot was handed over as it left: use it.
	a.queueWait.Observe(time.Since(now).Seconds())
	return true
}

// longestWait is how long a request may expect to wait for a slot (what its deadline leaves after
// a slot's hold, and while the queue stands at most MaxWait) and what its deadline leaves; false
// when nothing is left.
func (a *Admission) longestWait(ctx context.Context, now time.Time) (wait, budget time.Duration, ok bool) {
	budget = time.Duration(math.MaxInt64)
	if a.limit.Current() == 0 {
		return 0, 0, false // a replica that only sheds
	}
	if deadline, ok := ctx.Deadline(); ok {
		budget = deadline.Sub(now) - a.limit.Hold()
	}
	wait = budget
	if a.standing.is(now, a.policy) {
		wait = min(wait, a.policy.MaxWait)
	}
	return wait, budget, wait > 0
}

// expectedWait is how long the n-th request in line waits: each slot frees once per hold
// (Little's law); with no hold measured yet, none.
func (a *Admission) expectedWait(n int) time.Duration {
	return time.Duration(n) * a.limit.Hold() / time.Duration(max(1, a.limit.Current()))
}

// take counts a slot taken (mu held).
func (a *Admission) take() {
	a.inFlight++
	a.inFlightNow.Store(int64(a.inFlight))
}

// leave takes a waiter out of the queue; false when it had been handed a slot already.
func (a *Admission) leave(me *waiter) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, w := range a.queue {
		if w == me {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			return true
		}
	}
	return false
}

// release gives a slot back, or hands it to the first waiter, and feeds the limit the request's
// time in its slot.
func (a *Admission) release(held time.Duration) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.limit.Observe(held, a.inFlight, now)
	a.inFlight--
	for len(a.queue) > 0 && a.inFlight < a.limit.Current() {
		next := a.queue[0]
		a.queue[0] = nil
		a.queue = a.queue[1:]
		a.standing.observe(now.Sub(next.arrived), now, a.policy)
		a.inFlight++
		close(next.admitted)
	}
	if len(a.queue) == 0 {
		a.standing.observe(0, now, a.policy)
	}
	a.inFlightNow.Store(int64(a.inFlight))
}

// refuse answers 503 with a body marshalled once: under overload most requests end here, and
// refusing the excess must not take the CPU the served ones need. A shed request is counted, not
// logged: a summary line says how many were refused, at most once a second.
func (a *Admission) refuse(w http.ResponseWriter, r *http.Request) {
	a.shed.Inc()
	a.refusals.note(time.Now())
	telemetry.MarkShed(r)
	h := w.Header()
	h["Retry-After"] = a.retryAfterValue
	h["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(a.body)
}

var jsonContentType = []string{"application/json"}

// standingQueue is CoDel's test for a queue that does not drain: the shortest wait of the
// requests let in during an interval stayed above the target. Its state is guarded by the
// admission's mutex.
type standingQueue struct {
	intervalStart time.Time
	shortest      time.Duration // in the current interval (-1: no request yet)
	stands        bool          // the verdict of the last whole interval
}

func (s *standingQueue) observe(waited time.Duration, now time.Time, p QueuePolicy) {
	s.roll(now, p)
	if s.shortest < 0 || waited < s.shortest {
		s.shortest = waited
	}
}

func (s *standingQueue) is(now time.Time, p QueuePolicy) bool {
	s.roll(now, p)
	return s.stands
}

// roll closes the interval once it is over: it stood if every request let in waited past the
// target (an interval in which nobody was let in stands only if the one before did).
func (s *standingQueue) roll(now time.Time, p QueuePolicy) {
	if s.intervalStart.IsZero() {
		s.intervalStart, s.shortest = now, -1
		return
	}
	if now.Sub(s.intervalStart) < p.Interval {
		return
	}
	if s.shortest >= 0 {
		s.stands = s.shortest > p.Target
	}
	s.intervalStart, s.shortest = now, -1
}

// refusalSummary counts refusals and logs their number at most once a second, on the refusal
// that finds the last line a second old: no timer, and nothing logged while none are refused.
type refusalSummary struct {
	count    atomic.Int64 // refusals not yet logged
	lastLine atomic.Int64 // Unix nanoseconds of the last line (0: none yet)
}

func (s *refusalSummary) note(now time.Time) {
	s.count.Add(1)
	last, t := s.lastLine.Load(), now.UnixNano()
	if t-last < int64(time.Second) || !s.lastLine.CompareAndSwap(last, t) {
		return
	}
	attrs := []slog.Attr{slog.Int64("refused", s.count.Swap(0))}
	if last != 0 {
		attrs = append(attrs, slog.Int64("since_ms", (t-last)/int64(time.Millisecond)))
	}
	slog.Default().LogAttrs(context.Background(), slog.LevelWarn, "requests refused: overloaded", attrs...)
}
