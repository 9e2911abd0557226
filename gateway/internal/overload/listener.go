package overload

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// NewHTTPServer is the REST server with net/http's own protections against slow or idle clients
// (docs/operations.md, "Connections"); writes get the request timeout plus time to send the answer.
func NewHTTPServer(handler http.Handler, requestTimeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second, // the whole request, body included
		WriteTimeout:      requestTimeout + 5*time.Second,
		// Longer than a load balancer's usual idle timeout (60 s), so the balancer closes first and
		// never sends on a connection the gateway is closing.
		IdleTimeout: 120 * time.Second,
		// The whole request head: net/http answers a plain 431 above it. One header above its own
		// limit gets the API's 431 naming it (internal/httpapi).
		MaxHeaderBytes: 64 << 10,
	}
}

// LimitConnections returns a listener that refuses a new connection at once when its client (its
// remote IP) already holds perClient connections, or when max are open in all (0: no limit), so
// nothing waits behind another client's connections, while the connections it holds are served.
// A trusted proxy's count only against max: the clients behind it are told apart per request
// (ClientKey).
func LimitConnections(l net.Listener, max, perClient int, trustedProxy string, registry *prometheus.Registry) net.Listener {
	refused := promauto.With(registry).NewCounter(prometheus.CounterOpts{
		Name: "hotel_gateway_connections_refused_total",
		Help: "API connections refused at accept (503, then closed): their client held its share of connections, or the gateway its limit.",
	})
	return &connectionLimit{Listener: l, trustedProxy: trustedProxy, refused: refused,
		conns:   &shares{max: max, perClient: perClient, held: map[string]int{}},
		telling: make(chan struct{}, maxTelling)}
}

type connectionLimit struct {
	net.Listener
	conns        *shares // by client IP
	trustedProxy string  // IP whose connections carry many clients ("": none)
	refused      prometheus.Counter
	telling      chan struct{} // refused connections being told so
}

// maxTelling bounds the refused connections being answered at once; beyond it they are closed
// without an answer, so refusing costs a bounded number of goroutines whatever a client opens.
const maxTelling = 256

// connectionRefusal is the whole answer of a refused connection: the API's error body, 503 with
// Retry-After, and the connection closed after it.
var connectionRefusal = func() []byte {
	body := `{"code":14,"message":"this client holds its share of connections; send on the ones it has, or retry after a back-off",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TOO_MANY_CONNECTIONS","domain":"hotel.v1","metadata":{}}]}`
	return []byte(fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"+
		"Connection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
}()

// tell answers a refused connection at once and closes it once its request has been read (what
// arrives within a second), so the answer is not lost to a reset.
func (l *connectionLimit) tell(conn net.Conn) {
	select {
	case l.telling <- struct{}{}:
	default:
		_ = conn.Close()
		return
	}
	go func() {
		defer func() { <-l.telling }()
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write(connectionRefusal); err != nil {
			return
		}
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(conn, 64<<10))
	}()
}

func (l *connectionLimit) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		client := hostOf(conn.RemoteAddr().String())
		if l.conns.take(client, client == l.trustedProxy) == "" {
			return &limitedConn{Conn: conn, release: func() { l.conns.give(client) }}, nil
		}
		l.refused.Inc()
		l.tell(conn)
	}
}

// hostOf is addr's host part (the whole address if it has no port).
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// limitedConn gives its slot back once, however often it is closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite half-closes the connection (net/http does before closing, so the client reads the
// last answer rather than a reset).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ClientIDHeader names a client for its fair shares where one is sent.
const ClientIDHeader = "X-Client-Id"

// ClientKey is who a request counts against for fair shares: its X-Client-Id, else its peer
// address, or the address the trusted proxy forwarded (the internal clients do not
// authenticate, docs/decisions.md "Fair shares").
func ClientKey(r *http.Request, trustedProxy string) string {
	if id := r.Header.Get(ClientIDHeader); id != "" {
		return "id " + id
	}
	host := hostOf(r.RemoteAddr)
	if trustedProxy != "" && host == trustedProxy {
		if forwarded := r.Header.Values("X-Forwarded-For"); len(forwarded) > 0 {
			hops := strings.Split(forwarded[len(forwarded)-1], ",")
			return "peer " + strings.TrimSpace(hops[len(hops)-1])
		}
	}
	return "peer " + host
}
