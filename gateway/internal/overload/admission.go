// Package overload keeps any one client from holding what the others need, and refuses only
// what cannot be served: the admission of calls by their deadline, the shares of change streams
// per client, and the connections each client may hold (docs/deadlines-and-retries.md).
package overload

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"google.golang.org/grpc/codes"

	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/telemetry"
)

// Admission bounds the requests in flight to the server. A request that finds every slot taken
// waits, and is refused (503 with Retry-After) only when it could not be served within its
// deadline: at once when the expected wait plus a slot's hold time exceeds what is left of it, or
// when that much has passed while waiting; latency rising is no reason to refuse.
type Admission struct {
	slots           chan struct{} // capacity: the most requests in flight
	waiting         atomic.Int64  // requests waiting for a slot
	hold            atomic.Int64  // how long a request holds its slot, smoothed, in ns (0: none yet)
	retryAfterValue []string      // Retry-After of the gateway's own refusals, as a header value
	body            []byte        // their error body
	refusals        refusalSummary
	shed            prometheus.Counter
	queueWait       prometheus.Histogram
}

func NewAdmission(limit int, retryAfter time.Duration, registry *prometheus.Registry) *Admission {
	refusal := apierror.New(codes.Unavailable, "OVERLOADED", "the service is overloaded; retry after a back-off")
	body, _ := apierror.JSON.Marshal(refusal.Proto())
	metrics := promauto.With(registry)
	a := &Admission{
		slots:           make(chan struct{}, limit),
		retryAfterValue: []string{apierror.RetryAfterSeconds(retryAfter)},
		body:            body,
		shed: metrics.NewCounter(prometheus.CounterOpts{
			Name: "hotel_gateway_requests_shed_total",
			Help: "Requests the gateway answered 503 OVERLOADED itself because they could not be served within their deadline (the server counts its refusals in hotel_server_requests_shed_total).",
		}),
		queueWait: metrics.NewHistogram(prometheus.HistogramOpts{
			Name:    "hotel_gateway_queue_wait_seconds",
			Help:    "Time requests waited for an admission slot (those that found one free at once are not counted).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
	}
	// In flight is what the slots hold: read at each scrape, not kept twice.
	metrics.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_requests_in_flight", Help: "Requests holding an admission slot now.",
	}, func() float64 { return float64(len(a.slots)) })
	return a
}

// Limit runs next once a slot is free, if that can be within the request's deadline, else 503.
func (a *Admission) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case a.slots <- struct{}{}:
		default:
			if !a.wait(w, r) {
				return
			}
		}
		start := time.Now()
		defer func() {
			<-a.slots
			a.observeHold(time.Since(start))
		}()
		next.ServeHTTP(w, r)
	})
}

// wait waits for a slot for as long as the request could still be served after it; false: it was
// answered (refused) or its client has gone.
func (a *Admission) wait(w http.ResponseWriter, r *http.Request) bool {
	hold := time.Duration(a.hold.Load())
	budget := time.Duration(math.MaxInt64)
	if deadline, ok := r.Context().Deadline(); ok {
		budget = time.Until(deadline) - hold
	}
	waiting := a.waiting.Add(1)
	defer a.waiting.Add(-1)
	if expectedWait(waiting, cap(a.slots), hold) > budget {
		a.refuse(w, r)
		return false
	}
	start := time.Now()
	defer func() { a.queueWait.Observe(time.Since(start).Seconds()) }()
	select {
	case a.slots <- struct{}{}:
		return true
	case <-time.After(budget):
		a.refuse(w, r)
		return false
	case <-r.Context().Done():
		return false // the client has gone; nobody reads an answer
	}
}

// expectedWait is how long the waiting-th request in line waits for one of limit slots, each
// freeing once per hold (Little's law); with no hold measured yet, none.
func expectedWait(waiting int64, limit int, hold time.Duration) time.Duration {
	if limit <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(waiting) * hold / time.Duration(limit)
}

// observeHold adds a request's time in its slot to the smoothed hold time (weight 1/16: a few
// dozen requests follow a change). Racing updates may lose one sample, never corrupt it.
func (a *Admission) observeHold(d time.Duration) {
	old := a.hold.Load()
	if old == 0 {
		a.hold.Store(int64(d))
		return
	}
	a.hold.Store(old + (int64(d)-old)/16)
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
