package main

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
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

// admission bounds the requests the gateway has in flight to the server. A request beyond the
// bound waits at most queueTimeout for a slot, then gets 503 with Retry-After at once: under
// overload, answering the excess in microseconds keeps the CPU for the requests that are served
// (docs/performance.md#overload). A client (clientKey) holds at most perClient slots, so one
// client cannot take what the others need. Which requests are admitted here is the route
// table's decision (routes.go): probes and metrics never are, change streams by streamAdmission.
type admission struct {
	slots           chan struct{} // capacity: the most requests in flight
	perClient       *clientShares
	adaptive        *adaptiveLimit // nil: the limit is cap(slots)
	queueTimeout    time.Duration
	waiting         atomic.Int64 // requests waiting for a slot: at most maxWaiting (queueFull)
	hold            atomic.Int64 // how long a request holds its slot, smoothed, in ns (0: none yet)
	retryAfterValue []string     // Retry-After of the gateway's own refusals, as a header value
	// takeOver, when the door is open (door.go), answers a refusal on the raw connection and keeps
	// the connection at the door; false: not taken.
	takeOver  func(http.ResponseWriter, *http.Request) bool
	body      []byte // their error body
	refusals  refusalSummary
	shed      prometheus.Counter
	queueWait prometheus.Histogram
}

// newAdmission limits requests in flight to limit; adaptive, to a limit up to that which follows
// the latency of the requests served (adaptiveLimit).
func newAdmission(limit, perClient int, adaptive bool, queueTimeout, retryAfter time.Duration, registry *prometheus.Registry) *admission {
	body, _ := protoJSON.Marshal(overloaded("the service is overloaded; retry after a back-off").Proto())
	a := &admission{
		slots:           make(chan struct{}, limit),
		perClient:       newClientShares(perClient),
		queueTimeout:    queueTimeout,
		retryAfterValue: []string{retryAfterSeconds(retryAfter)},
		body:            body,
		shed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hotel_gateway_requests_shed_total",
			Help: "Requests the gateway answered 503 OVERLOADED itself (its own limit; the server counts its refusals in hotel_server_requests_shed_total).",
		}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hotel_gateway_queue_wait_seconds",
			Help:    "Time requests waited for an admission slot (those that found one free at once are not counted).",
			Buckets: []float64{.0001, .0005, .001, .002, .005, .01, .02, .05},
		}),
	}
	// In flight is what the slots hold: read at each scrape, not kept twice.
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_requests_in_flight", Help: "Requests holding an admission slot now.",
	}, func() float64 { return float64(len(a.slots)) })
	registry.MustRegister(a.shed, inFlight, a.queueWait)
	if adaptive {
		a.adaptive = newAdaptiveLimit(limit)
	}
	return a
}

// limit runs next if the client is within its share and a slot is free or frees within
// queueTimeout, and answers 503 otherwise. At most as many requests wait as slots are expected
// to free in time (maxWaiting): beyond that they are refused at once.
func (a *admission) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := clientKey(r)
		if !a.perClient.take(client) {
			a.refuse(w, r, client)
			return
		}
		defer a.perClient.give(client)
		select {
		case a.slots <- struct{}{}:
		default:
			if a.queueFull() {
				a.refuse(w, r, client)
				return
			}
			a.waiting.Add(1)
			start := time.Now()
			timer := time.NewTimer(a.queueTimeout)
			select {
			case a.slots <- struct{}{}:
				a.waiting.Add(-1)
				timer.Stop()
				a.queueWait.Observe(time.Since(start).Seconds())
			case <-timer.C:
				a.waiting.Add(-1)
				a.queueWait.Observe(time.Since(start).Seconds())
				a.refuse(w, r, client)
				return
			case <-r.Context().Done():
				a.waiting.Add(-1)
				timer.Stop()
				return // the client has gone; nobody reads an answer
			}
		}
		if a.adaptive != nil && len(a.slots) > a.adaptive.current() {
			<-a.slots
			a.refuse(w, r, client)
			return
		}
		start := time.Now()
		defer func() {
			<-a.slots
			held := time.Since(start)
			a.observeHold(held)
			if a.adaptive != nil {
				a.adaptive.observe(held, r.Method != http.MethodGet && r.Method != http.MethodHead)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// currentLimit is the most requests admitted at once now.
func (a *admission) currentLimit() int {
	if a.adaptive != nil {
		return min(cap(a.slots), a.adaptive.current())
	}
	return cap(a.slots)
}

// queueFull: a request finding no free slot is refused at once rather than waiting.
func (a *admission) queueFull() bool {
	return a.queueTimeout <= 0 || a.waiting.Load() >= a.maxWaiting()
}

// maxWaiting is how many requests may wait for a slot: as many as slots are expected to free
// within queueTimeout, at least one and at most the limit. Full slots turn over once per hold
// time (Little's law), so under overload, when requests hold their slots for 20 ms, a 5 ms queue
// serves a quarter of the limit; a waiter beyond that would only be refused 5 ms later, and
// those late refusals made the refusals' p99 (issue 40).
func (a *admission) maxWaiting() int64 {
	return waitersWithin(int64(a.currentLimit()), a.queueTimeout, time.Duration(a.hold.Load()))
}

func waitersWithin(limit int64, queueTimeout, hold time.Duration) int64 {
	if hold <= 0 {
		return limit // nothing served yet: no estimate
	}
	turnovers := (limit*int64(queueTimeout) + int64(hold) - 1) / int64(hold)
	return max(1, min(limit, turnovers))
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

// shedding says whether a request of client arriving now would be refused at once: its share is
// held, or every slot is taken and the queue is full. The door (door.go) refuses such requests
// before net/http reads them.
func (a *admission) shedding(client string) bool {
	return (len(a.slots) >= a.currentLimit() && a.queueFull()) || a.perClient.full(client)
}

// refuse answers 503 with a body marshalled once and header values shared by every refusal:
// under overload most requests end here, and a refusal must cost a small fraction of a served
// request (issue 40: at most a tenth), or refusing the excess takes the CPU the served ones need.
// The request is marked shed, so it is counted but not logged one line each (observe.go); a
// summary line says how many were refused, at most once a second.
//
// While the gateway sheds, the door takes the refusal and the connection over (door.go).
func (a *admission) refuse(w http.ResponseWriter, r *http.Request, client string) {
	a.shed.Inc()
	a.refusals.note(time.Now())
	markShed(r)
	if a.takeOver != nil && a.shedding(client) && a.takeOver(w, r) {
		return
	}
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

// adaptiveLimit is a concurrency limit that follows latency, as the server's
// (server/src/api/admission.h) and Netflix's concurrency-limits Gradient2: per window of
// requests, the limit is scaled by the best recent window's average latency over this window's
// (up to twice the best counts as no queueing) and probes upwards by sqrt(limit). The best
// window, not the fastest single request: one cache hit among slow writes is no baseline.
type adaptiveLimit struct {
	mu      sync.Mutex
	limit   float64 // kept fractional: rounding each step would stall the smoothing
	max     int
	windows [2]latencyWindow // reads (GET, HEAD) and writes: each compared with its own best
	value   atomic.Int64
}

// latencyWindow is one kind of request's current window and its best recent window average. A
// write taking 5 ms is no sign of queueing because reads take 0.5 ms: compared with the reads'
// best, a shift of the mix towards writes would read as a 10 × slowdown and shrink the limit
// to a handful of requests (it did: 503s at 8 concurrent writers on an idle machine).
type latencyWindow struct {
	sum      time.Duration
	count    int
	shortest time.Duration
	windows  int
}

const (
	adaptiveMin         = 2
	adaptiveWindowCalls = 200
	adaptiveResetAfter  = 50 // windows before the shortest latency is forgotten
)

func newAdaptiveLimit(max int) *adaptiveLimit {
	l := &adaptiveLimit{limit: math.Max(adaptiveMin, float64(max/2)), max: max}
	l.value.Store(int64(l.limit))
	return l
}

func (l *adaptiveLimit) current() int { return int(l.value.Load()) }

// observe records a request's latency; write: not a GET or HEAD.
func (l *adaptiveLimit) observe(d time.Duration, write bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := &l.windows[0]
	if write {
		w = &l.windows[1]
	}
	w.sum += d
	if w.count++; w.count < adaptiveWindowCalls {
		return
	}
	average := w.sum / time.Duration(w.count)
	if w.shortest == 0 || average < w.shortest {
		w.shortest = average
	}
	l.limit = nextAdaptiveLimit(l.limit, w.shortest, average, adaptiveMin, l.max)
	l.value.Store(int64(math.Round(l.limit)))
	w.sum, w.count = 0, 0
	if w.windows++; w.windows >= adaptiveResetAfter {
		w.shortest, w.windows = 0, 0
	}
}

func nextAdaptiveLimit(limit float64, shortest, average time.Duration, min, max int) float64 {
	if average <= 0 || shortest <= 0 {
		return limit
	}
	gradient := math.Max(0.5, math.Min(1, 2*float64(shortest)/float64(average)))
	next := limit*gradient + math.Sqrt(limit)
	return math.Max(float64(min), math.Min(float64(max), 0.8*limit+0.2*next))
}
