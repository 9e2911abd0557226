package main

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// retryPushbackHeader is the trailer in which the server says when to retry a refused call.
const retryPushbackHeader = "grpc-retry-pushback-ms"

// admission bounds the requests the gateway has in flight to the server. A request that finds
// every slot taken waits in line for one, and is refused (503 with Retry-After) only when it
// could not be served within its deadline: when the expected wait for a slot plus the time a
// request holds one exceeds what is left of its deadline, at once, or when that much of its
// deadline has passed while waiting (docs/deadlines-and-retries.md, "Admission"). Latency
// rising is no reason to refuse. Which requests are admitted here is the route table's decision
// (routes.go): probes and metrics never are, change streams by streamAdmission. One client's
// share of the slots is bounded by its connections (listener.go), as each holds one request.
type admission struct {
	slots           chan struct{} // capacity: the most requests in flight
	waiting         atomic.Int64  // requests waiting for a slot
	hold            atomic.Int64  // how long a request holds its slot, smoothed, in ns (0: none yet)
	retryAfterValue []string      // Retry-After of the gateway's own refusals, as a header value
	body            []byte        // their error body
	refusals        refusalSummary
	shed            prometheus.Counter
	queueWait       prometheus.Histogram
}

func newAdmission(limit int, retryAfter time.Duration, registry *prometheus.Registry) *admission {
	body, _ := protoJSON.Marshal(overloaded("the service is overloaded; retry after a back-off").Proto())
	a := &admission{
		slots:           make(chan struct{}, limit),
		retryAfterValue: []string{retryAfterSeconds(retryAfter)},
		body:            body,
		shed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hotel_gateway_requests_shed_total",
			Help: "Requests the gateway answered 503 OVERLOADED itself because they could not be served within their deadline (the server counts its refusals in hotel_server_requests_shed_total).",
		}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hotel_gateway_queue_wait_seconds",
			Help:    "Time requests waited for an admission slot (those that found one free at once are not counted).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
	}
	// In flight is what the slots hold: read at each scrape, not kept twice.
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_requests_in_flight", Help: "Requests holding an admission slot now.",
	}, func() float64 { return float64(len(a.slots)) })
	registry.MustRegister(a.shed, inFlight, a.queueWait)
	return a
}

// limit runs next once a slot is free, if that can be within the request's deadline (set by the
// deadline middleware before it), and answers 503 otherwise.
func (a *admission) limit(next http.Handler) http.Handler {
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
func (a *admission) wait(w http.ResponseWriter, r *http.Request) bool {
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
	timeout := make(<-chan time.Time)
	if budget < time.Duration(math.MaxInt64) {
		timer := time.NewTimer(budget)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case a.slots <- struct{}{}:
		return true
	case <-timeout:
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
func (a *admission) observeHold(d time.Duration) {
	old := a.hold.Load()
	if old == 0 {
		a.hold.Store(int64(d))
		return
	}
	a.hold.Store(old + (int64(d)-old)/16)
}

// refuse answers 503 with a body marshalled once and header values shared by every refusal:
// under overload most requests end here, and a refusal must cost a small fraction of a served
// request (issue 40: at most a tenth), or refusing the excess takes the CPU the served ones need.
// The request is marked shed, so it is counted but not logged one line each (observe.go); a
// summary line says how many were refused, at most once a second.
func (a *admission) refuse(w http.ResponseWriter, r *http.Request) {
	a.shed.Inc()
	a.refusals.note(time.Now())
	markShed(r)
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

func overloaded(message string) *status.Status {
	st, _ := status.New(codes.Unavailable, message).WithDetails(
		&errdetails.ErrorInfo{Reason: "OVERLOADED", Domain: errorDomain})
	return st
}

// retryAfterSeconds is d in whole seconds (at least 1), as HTTP's Retry-After wants it.
func retryAfterSeconds(d time.Duration) string {
	seconds := int((d + time.Second - 1) / time.Second)
	if seconds < 1 {
		seconds = 1
	}
	return strconv.Itoa(seconds)
}

// writeOverloaded answers 503 with Retry-After, for a refusal by the server.
func writeOverloaded(w http.ResponseWriter, st *status.Status, retryAfter time.Duration) {
	w.Header().Set("Retry-After", retryAfterSeconds(retryAfter))
	writeStatus(w, st)
}

// serverPushback is how long the server asked the client to wait before retrying (gRFC A6's
// grpc-retry-pushback-ms trailer), if it did.
func serverPushback(ctx context.Context) (time.Duration, bool) {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return 0, false
	}
	values := md.TrailerMD.Get(retryPushbackHeader)
	if len(values) == 0 {
		return 0, false
	}
	ms, err := strconv.Atoi(values[0])
	if err != nil || ms < 0 {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// isOverloaded says whether st is an admission refusal (gateway's or server's).
func isOverloaded(st *status.Status) bool {
	if st.Code() != codes.Unavailable {
		return false
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Reason == "OVERLOADED" {
			return true
		}
	}
	return false
}
