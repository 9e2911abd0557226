package overload

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"hotel/gateway/internal/apierror"
)

// shares counts what each client (ClientKey, or a connection's IP) holds of a resource, against
// a cap per client and one in all (0: no cap). A client is forgotten when it holds nothing, so the
// map is as large as the number of clients with something held, whatever clients send.
type shares struct {
	mu                    sync.Mutex
	max, perClient, total int
	held                  map[string]int
}

// take counts one more for client, unless that passes a cap: "" when taken, else which one,
// "client" (its share, which an exempt client has none of) or "gateway" (the total).
func (s *shares) take(client string, exempt bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !exempt && s.perClient > 0 && s.held[client] >= s.perClient:
		return "client"
	case s.max > 0 && s.total >= s.max:
		return "gateway"
	}
	s.total++
	s.held[client]++
	return ""
}

func (s *shares) give(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.held[client]--; s.held[client] <= 0 {
		delete(s.held, client)
	}
}

func (s *shares) taken() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// StreamAdmission bounds the change streams the gateway carries, in total and per client. Streams
// last as long as their clients want, so they never wait for a slot: beyond a limit the answer
// is 429 at once, like the server's own watcher limit (WATCHER_LIMIT).
type StreamAdmission struct {
	streams  *shares
	refusals map[string]*status.Status // by the limit passed: "client" or "gateway"
	refused  *prometheus.CounterVec
	// trustedProxy is the proxy whose X-Forwarded-For names the client (ClientKey).
	trustedProxy string
}

func NewStreamAdmission(limit, perClient int, trustedProxy string, registry *prometheus.Registry) *StreamAdmission {
	s := &StreamAdmission{
		streams:      &shares{max: limit, perClient: perClient, held: map[string]int{}},
		trustedProxy: trustedProxy,
		refusals: map[string]*status.Status{
			"gateway": apierror.New(codes.ResourceExhausted, "WATCHER_LIMIT", fmt.Sprintf(
				"this gateway already carries %d change streams; retry after a back-off or use another replica", limit)),
			"client": apierror.New(codes.ResourceExhausted, "WATCHER_LIMIT", fmt.Sprintf(
				"this client already holds %d change streams, its share; close one first", perClient)),
		},
		refused: promauto.With(registry).NewCounterVec(prometheus.CounterOpts{
			Name: "hotel_gateway_streams_refused_total",
			Help: "Change streams the gateway refused (429): limit is gateway (its total) or client (one client's share).",
		}, []string{"limit"}),
	}
	promauto.With(registry).NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hotel_gateway_streams_open", Help: "Change streams the gateway carries now.",
	}, func() float64 { return float64(s.streams.taken()) })
	return s
}

// Limit runs a change stream if its client and the gateway are within their limits, else 429.
func (s *StreamAdmission) Limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ClientKey(r, s.trustedProxy)
		if limit := s.streams.take(client, false); limit != "" {
			if limit == "client" {
				// Its connection goes too: a client past its share gets nothing more held for it.
				w.Header().Set("Connection", "close")
			}
			s.refused.WithLabelValues(limit).Inc()
			w.Header().Set("Retry-After", "1")
			apierror.Write(w, s.refusals[limit])
			return
		}
		defer s.streams.give(client)
		next.ServeHTTP(w, r)
	})
}
