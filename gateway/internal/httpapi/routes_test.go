package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hotel/gateway/internal/cdn"
	"hotel/gateway/internal/overload"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// waitUntil polls a condition on observable state (a gauge, a slot count), failing after 5 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// serveRaw serves h on a loopback port and sends request (which may stop short) on a connection
// that reads nothing unless the test does.
func serveRaw(t *testing.T, h http.Handler, request string) (*httptest.Server, net.Conn) {
	t.Helper()
	server := httptest.NewServer(h)
	t.Cleanup(server.Close)
	conn, err := net.Dial("tcp", server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	return server, conn
}

func gaugeValue(g prometheus.Gauge) float64 {
	var m dto.Metric
	_ = g.Write(&m)
	return m.GetGauge().GetValue()
}

func scrape(t *testing.T, g *Gateway) string {
	t.Helper()
	rec, _ := do(t, g.AdminHandler(fakeServerMetrics), "GET", "/metrics", nil)
	return rec.Body.String()
}

func seriesOf(metrics, name string) int {
	n := 0
	for _, line := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(line, name+"{") {
			n++
		}
	}
	return n
}

func TestEveryRouteIsLoggedAndMeasuredUnderItsTableLabel(t *testing.T) {
	g := newTestGateway(t, newTestMux(t))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jpg"), []byte("jpeg"), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if g.CDN, err = cdn.NewOrigin(dir); err != nil {
		t.Fatal(err)
	}
	h := g.Handler()
	for _, r := range []struct{ method, path, want string }{
		{"GET", "/api/v1/health/live", `method="GET",route="/api/v1/health/live"`},
		{"GET", "/api/v1/openapi.json", `method="GET",route="/api/v1/openapi.json"`},
		{"GET", "/cdn/a.jpg", `method="GET",route="/cdn/"`},
		{"GET", "/api/v1/rooms?floor=x", `method="GET",route="/api/v1/rooms"`},
		{"GET", "/nowhere", `method="GET",route="_OTHER"`},
		{"GET", "/api/v1/nowhere", `method="GET",route="_OTHER"`},
		{"BREW", "/api/v1/rooms", `method="_OTHER",route="_OTHER"`},
	} {
		rec, _ := do(t, h, r.method, r.path, nil)
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s %s was not observed", r.method, r.path)
		}
		if metrics := scrape(t, g); !strings.Contains(metrics, r.want) {
			t.Errorf("%s %s: no series with %s", r.method, r.path, r.want)
		}
	}
}

func TestUnknownMethodsAndPathsAddNoSeries(t *testing.T) {
	g := newTestGateway(t, newTestMux(t))
	h := g.Handler()
	do(t, h, "XMETHOD0", "/api/v1/rooms/x0/y", nil)
	before := seriesOf(scrape(t, g), "hotel_gateway_requests_total")
	for i := 1; i < 20; i++ {
		do(t, h, fmt.Sprintf("XMETHOD%d%s", i, strings.Repeat("A", 1000)), fmt.Sprintf("/api/v1/rooms/x%d/y", i), nil)
	}
	if after := seriesOf(scrape(t, g), "hotel_gateway_requests_total"); after != before || before == 0 {
		t.Errorf("series %d after twenty random methods, %d after one", after, before)
	}
}

func TestLivenessIsAnsweredByTheGatewayItself(t *testing.T) {
	// newTestHandler's server address has nothing listening: readiness fails, liveness does not.
	h := newTestHandler(t)
	if rec, _ := do(t, h, "GET", "/api/v1/health/live", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"status":"SERVING"`) {
		t.Errorf("liveness: %d %s", rec.Code, rec.Body.String())
	}
	if rec, _ := do(t, h, "GET", "/api/v1/health", nil); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readiness without a server: %d", rec.Code)
	}
}

func TestGrpcTimeoutIsParsedClampedOrRefused(t *testing.T) {
	g := newTestGateway(t, newTestMux(t))
	g.cfg.MaxRequestTimeout = time.Minute
	var left time.Duration
	var forwarded string
	h := g.deadline(10 * time.Second)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadline, _ := r.Context().Deadline()
		left, forwarded = time.Until(deadline), r.Header.Get(grpcTimeoutHeader)
	}))
	for value, want := range map[string]time.Duration{
		"":          10 * time.Second,
		"5S":        5 * time.Second,
		"250m":      250 * time.Millisecond,
		"2070000H":  time.Minute, // overflowed into a passed deadline before
		"99999999H": time.Minute,
		"1M":        time.Minute,
	} {
		req := httptest.NewRequest("GET", "/api/v1/rooms", nil)
		if value != "" {
			req.Header.Set(grpcTimeoutHeader, value)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || left > want || left < want-time.Second || forwarded != "" {
			t.Errorf("Grpc-Timeout %q: %d, deadline in %v (want %v), header left %q", value, rec.Code, left, want, forwarded)
		}
	}
	for _, value := range []string{"0S", "0000000m", "5", "S", "5X", "-5S", "+5S", "123456789S", "1.5S", " 5S"} {
		req := httptest.NewRequest("GET", "/api/v1/rooms", nil)
		req.Header.Set(grpcTimeoutHeader, value)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"field":"grpc-timeout"`) {
			t.Errorf("Grpc-Timeout %q: %d %s", value, rec.Code, rec.Body.String())
		}
	}
}

func TestAClientIDMustBeWellFormed(t *testing.T) {
	req := httptest.NewRequest("GET", "/api/v1/rooms", nil)
	req.Header.Set(overload.ClientIDHeader, "bad id/with spaces")
	rec := httptest.NewRecorder()
	newTestHandler(t).ServeHTTP(rec, req)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"field":"x-client-id"`) {
		t.Errorf("%d %s", rec.Code, rec.Body.String())
	}
}

// A client sending its body slowly holds no admission slot: with one slot, another client's
// call is served while the body is still arriving, and the slow one gets 408 after the timeout.
func TestASlowBodyHoldsNoAdmissionSlot(t *testing.T) {
	_, g := startBackendGateway(t)
	g.calls = overload.NewAdmission(1, 1, overload.DefaultQueuePolicy, time.Second, prometheus.NewRegistry())
	g.cfg.BodyTimeout = 500 * time.Millisecond
	server, slow := serveRaw(t, g.Handler(),
		"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	waitUntil(t, "the slow body being read", func() bool { return gaugeValue(g.bodies) == 1 })
	req, _ := http.NewRequestWithContext(context.Background(), "GET", server.URL+"/api/v1/issues/abc", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("another client's call while a body arrives slowly: %d", resp.StatusCode)
	}
	answer, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatal(err)
	}
	answer.Body.Close()
	if answer.StatusCode != http.StatusRequestTimeout || !answer.Close {
		t.Errorf("slow body: %d %v (close: %v)", answer.StatusCode, answer.Header, answer.Close)
	}
}
