package overload

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// dialFrom connects to addr from the loopback address source.
func dialFrom(t *testing.T, source, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// refusedAtOnce says whether the peer answered conn's request with a 503 and Retry-After, then
// closed it.
func refusedAtOnce(t *testing.T, conn net.Conn) bool {
	t.Helper()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == 503 && resp.Header.Get("Retry-After") == "1" && resp.Close &&
		strings.Contains(string(body), `"reason":"TOO_MANY_CONNECTIONS"`)
}

func TestAClientPastItsConnectionShareIsRefusedAtOnceAndOthersAreAccepted(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := LimitConnections(inner, 0, 2, "", prometheus.NewRegistry()).(*connectionLimit)
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- conn
		}
	}()
	t.Cleanup(func() { l.Close() })
	addr := inner.Addr().String()

	dialFrom(t, "127.0.0.2", addr)
	dialFrom(t, "127.0.0.2", addr)
	first, second := <-accepted, <-accepted
	if !refusedAtOnce(t, dialFrom(t, "127.0.0.2", addr)) {
		t.Error("a third connection of a client with a share of two was not refused at once")
	}
	dialFrom(t, "127.0.0.3", addr)
	if conn := <-accepted; hostOf(conn.RemoteAddr().String()) != "127.0.0.3" {
		t.Errorf("accepted %v, want the other client's connection", conn.RemoteAddr())
	}
	// A connection closed gives its place back.
	first.Close()
	second.Close()
	dialFrom(t, "127.0.0.2", addr)
	if conn := <-accepted; hostOf(conn.RemoteAddr().String()) != "127.0.0.2" {
		t.Errorf("accepted %v after the client closed its connections", conn.RemoteAddr())
	}
	if refused := counterValue(l.refused); refused != 1 {
		t.Errorf("%v connections counted refused, want 1", refused)
	}
}

func TestATrustedProxyCountsOnlyAgainstTheTotal(t *testing.T) {
	l := LimitConnections(nil, 3, 1, "10.0.0.1", prometheus.NewRegistry()).(*connectionLimit)
	take := func(client string) bool { return l.conns.take(client, client == l.trustedProxy) == "" }
	if !take("10.0.0.1") || !take("10.0.0.1") || !take("10.0.0.1") {
		t.Error("the proxy was held to the per-client share")
	}
	if take("10.0.0.1") || take("10.0.0.2") {
		t.Error("a connection past the total was accepted")
	}
}
