package overload

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"hotel/gateway/internal/apierror"
)

// clientShares counts what each client (ClientKey) holds of a resource, against a cap per
// client. A client is forgotten when it holds nothing, so the map is as large as the number of
// clients with something in flight, whatever clients send.
type clientShares struct {
	mu   sync.Mutex
	held map[string]int
	max  int
}

func newClientShares(max int) *clientShares {
	return &clientShares{held: map[string]int{}, max: max}
}

// take counts one more for client, unless it already holds its share.
func (c *clientShares) take(client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[client] >= c.max {
		return false
	}
	c.held[client]++
	return true
}

func (c *clientShares) give(client string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[client]--; c.held[client] <= 0 {
		delete(c.held, client)
	}
}

// StreamAdmission bounds the change streams the gateway carries, in total and per client. Streams
// last as long as their clients want, so they never wait for a slot: beyond a limit the answer
// is 429 at once, like the server's own watcher limit (WATCHER_LIMIT).
type StreamAdmission struct {
	slots     chan struct{}
	perClient *clientShares
	full      *status.Status
	share     *status.Status
	refused   *prometheus.CounterVec
	// trustedProxy is the proxy whose X-Forwarded-For names the client (ClientKey).
	trustedProxy string
}

func NewStreamAdmission(limit, perClient int, trustedProxy string, registry *prometheus.Registry) *StreamAdmission {
	refusal := func(message string) *status.Status {
		st, _ := status.New(codes.ResourceExhausted, message).WithDetails(
			&errdetails.ErrorInfo{Reason: "WATCHER_LIMIT", Domain: apierror.Domain})
		return st
	}
	s := &StreamAdmission{
		slots:        make(chan struct{}, limit),
		perClient:    newClientShares(perClient),
		trustedProxy: trustedProxy,
		full:         refusal(fmt.Sprintf("this gateway already carries %d change streams; retry after a back-off or use another replica", limit)),
		share:        refusal(fmt.Sprintf("this client already holds %d change streams, its share; close one first", perClient)),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hotel_gateway_streams_refused_total",
			Help: "Change streams the gateway refused (429): limit is gateway (its total) or client (one client's share).",
		}, []string{"limit"}),
	}
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_streams_open", Help: "Change streams the gateway carries now.",
	}, func() float64 { return float64(len(s.slots)) })
	registry.MustRegister(s.refused, open)
	return s
}

// Limit runs a change stream if its client and the gateway are within their limits, else 429.
func (s *StreamAdmission) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ClientKey(r, s.trustedProxy)
		if !s.perClient.take(client) {
			// Its connection goes too: a client past its share gets nothing more held for it.
			w.Header().Set("Connection", "close")
			s.refuse(w, "client", s.share)
			return
		}
		defer s.perClient.give(client)
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		default:
			s.refuse(w, "gateway", s.full)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *StreamAdmission) refuse(w http.ResponseWriter, limit string, st *status.Status) {
	s.refused.WithLabelValues(limit).Inc()
	w.Header().Set("Retry-After", "1")
	apierror.Write(w, st)
}
