package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// serveThroughDoor serves g as main does (connection cap, door, net/http) on a loopback port.
func serveThroughDoor(t *testing.T, g *gateway) string {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := newHTTPServer(g.handler(), 5*time.Second)
	go func() { _ = server.Serve(g.door(limitConnections(inner, 16))) }()
	t.Cleanup(func() { _ = server.Close() })
	return "http://" + inner.Addr().String()
}

// counting counts the connections a client opens.
func counting(ctx context.Context, opened *int, mu *sync.Mutex) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			mu.Lock()
			*opened++
			mu.Unlock()
		}
	}})
}

func TestTheDoorRefusesOnTheConnectionWithTheAnswerAdmissionGives(t *testing.T) {
	_, g := startBackendGateway(t)
	g.calls = newAdmission(0, 1, false, 0, time.Second, prometheus.NewRegistry()) // every call refused
	base := serveThroughDoor(t, g)
	var opened int
	var mu sync.Mutex
	ctx := counting(context.Background(), &opened, &mu)
	for i := 0; i < 5; i++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/issues/abc?x=1", nil)
		if i == 0 {
			req.Header.Set("X-Request-Id", "my-request.1")
			req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e errorBody
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != 503 || e.Code != 14 ||
			!strings.Contains(string(body), `"reason":"OVERLOADED"`) || resp.Header.Get("Retry-After") != "1" ||
			resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Date") == "" {
			t.Fatalf("refusal %d: %d %v %s", i, resp.StatusCode, resp.Header, body)
		}
		id, parent := resp.Header.Get("X-Request-Id"), resp.Header.Get("Traceparent")
		if !validTraceparent.MatchString(parent) || !validRequestID.MatchString(id) {
			t.Errorf("refusal %d: X-Request-Id %q, Traceparent %q", i, id, parent)
		}
		if i == 0 && (id != "my-request.1" || !strings.HasPrefix(parent, "00-4bf92f3577b34da6a3ce929d0e0e4736-") ||
			strings.Contains(parent, "00f067aa0ba902b7")) {
			t.Errorf("the caller's request id and trace are not kept: %q %q", id, parent)
		}
	}
	if opened != 1 {
		t.Errorf("%d connections for 5 refusals: the door closes its keep-alive connections", opened)
	}
	checkDoorRefusals(t, g, 5)
	// What admission does not guard is served on the same kind of connection, door or not.
	for _, path := range []string{"/api/v1/health/live", "/api/v1/openapi.json"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s while shedding: %d", path, resp.StatusCode)
		}
	}
}

// checkDoorRefusals checks that g counted want refusals of GET, as admission counts them, all
// written by the door.
func checkDoorRefusals(t *testing.T, g *gateway, want float64) {
	t.Helper()
	var shed, counted dto.Metric
	_ = g.calls.shed.Write(&shed)
	_ = g.metrics.requests.WithLabelValues("GET", otherLabel, "503").Write(&counted)
	door := fmt.Sprintf("hotel_gateway_door_refusals_total %g", want)
	if shed.GetCounter().GetValue() != want || counted.GetCounter().GetValue() != want || !strings.Contains(scrape(t, g), door) {
		t.Errorf("shed %v, requests_total{code=503} %v, want %v each, all written by the door",
			shed.GetCounter().GetValue(), counted.GetCounter().GetValue(), want)
	}
}

// takeTheSlot has a slow call take g's only call slot until the backend is released; its status
// comes on the channel.
func takeTheSlot(t *testing.T, g *gateway, base string) <-chan int {
	t.Helper()
	slow := make(chan int, 1)
	go func() {
		resp, err := http.Get(base + "/api/v1/issues/slow")
		if err != nil {
			slow <- 0
			return
		}
		resp.Body.Close()
		slow <- resp.StatusCode
	}()
	waitUntil(t, "the slow call to take the slot", func() bool { return len(g.calls.slots) == 1 })
	return slow
}

func TestTheDoorHandsTheConnectionToNetHTTPOnceASlotIsFree(t *testing.T) {
	backend, g := startBackendGateway(t)
	g.calls = newAdmission(1, 1, false, 0, time.Second, prometheus.NewRegistry())
	base := serveThroughDoor(t, g)
	slow := takeTheSlot(t, g, base)
	client := &http.Client{Transport: &http.Transport{}}
	var opened int
	var mu sync.Mutex
	ctx := counting(context.Background(), &opened, &mu)
	get := func() (int, http.Header) {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/issues/abc", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	if code, h := get(); code != 503 || h.Get("Connection") == "close" {
		t.Errorf("while the slot is taken: %d %v (want 503 on a connection kept open)", code, h)
	}
	close(backend.release)
	if code := <-slow; code != 200 {
		t.Errorf("the slow call: %d", code)
	}
	for i := 0; i < 3; i++ {
		if code, _ := get(); code != 200 {
			t.Errorf("after the slot freed: %d", code)
		}
	}
	if opened != 1 {
		t.Errorf("%d connections: the door's connection was not handed over", opened)
	}
}

// rawExchange writes request on a new connection to base and reads answers until the server
// closes it or a second passes.
func rawExchange(t *testing.T, base, request string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	out, _ := io.ReadAll(conn)
	return string(out)
}

func TestTheDoorAnswersPipelinedRequestsInOrderAndClosesWhenAsked(t *testing.T) {
	_, g := startBackendGateway(t)
	g.calls = newAdmission(0, 1, false, 0, time.Second, prometheus.NewRegistry())
	base := serveThroughDoor(t, g)
	out := rawExchange(t, base, "GET /api/v1/issues/a HTTP/1.1\r\nHost: x\r\n\r\n"+
		"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"+
		"GET /api/v1/health/live HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /api/v1/issues/b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	reader := bufio.NewReader(strings.NewReader(out))
	for i, want := range []int{503, 503, 200, 503} {
		resp, err := http.ReadResponse(reader, nil)
		if err != nil {
			t.Fatalf("answer %d: %v (read %q)", i, err, out)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != want {
			t.Errorf("answer %d: %d, want %d", i, resp.StatusCode, want)
		}
		if i == 3 && !resp.Close {
			t.Errorf("answer to Connection: close does not close: %v", resp.Header)
		}
	}
	if rest, _ := io.ReadAll(reader); len(rest) > 0 {
		t.Errorf("after the last answer: %q", rest)
	}
	// HEAD gets the head alone; a request the door does not read (HTTP/1.0) goes to net/http,
	// which refuses it too.
	out = rawExchange(t, base, "HEAD /api/v1/issues/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if !strings.HasPrefix(out, "HTTP/1.1 503 ") || !strings.HasSuffix(out, "\r\n\r\n") {
		t.Errorf("HEAD: %q", out)
	}
	out = rawExchange(t, base, "GET /api/v1/issues/a HTTP/1.0\r\n\r\n")
	if !strings.HasPrefix(out, "HTTP/1.0 503 ") || !strings.Contains(out, "OVERLOADED") {
		t.Errorf("HTTP/1.0: %q", out)
	}
}

func TestTheDoorReadsOnlyWhatItCanReadWhole(t *testing.T) {
	for _, tc := range []struct {
		request string
		want    headVerdict
	}{
		{"GET /api/v1/rooms?floor=2 HTTP/1.1\r\nHost: x\r\nX-Client-Id: a\r\n\r\n", headSimple},
		{"POST /api/v1/issues HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}", headSimple},
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", headSimple},
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\n", headIncomplete},
		{"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}", headIncomplete},
		{"GET /api/v1/rooms HTTP/1.0\r\nHost: x\r\n\r\n", headOther},
		{"GET /api/v1/rooms HTTP/1.1\r\n\r\n", headOther}, // no Host: net/http's 400
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", headOther},
		{"GET /api/v1/rooms HTTP/1.1\nHost: x\n\n", headOther},
		{"GET /api/v1/r%6Foms HTTP/1.1\r\nHost: x\r\n\r\n", headOther},
		{"GET /api/v1/../rooms HTTP/1.1\r\nHost: x\r\n\r\n", headOther},
		{"GET http://x/api/v1/rooms HTTP/1.1\r\nHost: x\r\n\r\n", headOther},
		{"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", headOther},
		{"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n", headOther},
		{"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", headOther},
		{"POST /api/v1/issues HTTP/1.1\r\nHost: x\r\nContent-Length: 999999\r\n\r\n", headOther},
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\nX-Client-Id: not valid!\r\n\r\n", headOther},
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n", headOther},
		{"GET /api/v1/rooms HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", headOther},
		{"\x16\x03\x01\x02\x00\x01", headOther}, // a TLS handshake
	} {
		if _, got := readHead([]byte(tc.request)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.request, got, tc.want)
		}
	}
}

// doorRefusal reads, routes and answers one request as the door does for a gateway that refuses
// every call; it fails if the door would not refuse it.
func doorRefusal(tb testing.TB) func() {
	g := newTestGateway(&testing.T{}, newTestMux(&testing.T{}))
	g.calls = newAdmission(0, 1, false, 0, time.Second, prometheus.NewRegistry())
	d := &door{calls: func() *admission { return g.calls }, admitted: g.doorRoutes(), cache: map[string]bool{},
		requests: g.metrics.requests, durations: g.metrics.duration, answered: prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})}
	raw := []byte("GET /api/v1/rooms/101?property_id=BER1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
		"User-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n\r\n")
	out := make([]byte, 0, 1024)
	return func() {
		req, verdict := readHead(raw)
		if verdict != headSimple || !d.admits(req) || !g.calls.shedding("peer 127.0.0.1") {
			tb.Fatal("the door would not refuse it")
		}
		out = d.refuse(out[:0], req, false)
	}
}

func TestADoorRefusalAllocatesAlmostNothing(t *testing.T) {
	refuse := doorRefusal(t)
	if allocs := testing.AllocsPerRun(1000, refuse); allocs > 1 { // the method's label
		t.Errorf("%.1f allocations per refusal at the door", allocs)
	}
}

func BenchmarkDoorRefusal(b *testing.B) {
	refuse := doorRefusal(b)
	b.ReportAllocs()
	for b.Loop() {
		refuse()
	}
}

func TestARefusalOnNetHTTPsConnectionMovesItToTheDoor(t *testing.T) {
	backend, g := startBackendGateway(t)
	g.calls = newAdmission(1, 1, false, 0, time.Second, prometheus.NewRegistry())
	base := serveThroughDoor(t, g)
	client := &http.Client{Transport: &http.Transport{}}
	var opened int
	var mu sync.Mutex
	ctx := counting(context.Background(), &opened, &mu)
	get := func() (int, http.Header, string) {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/issues/abc", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, resp.Header, string(body)
	}
	if code, _, _ := get(); code != 200 { // served: the connection is net/http's
		t.Fatalf("first call: %d", code)
	}
	slow := takeTheSlot(t, g, base)
	for i := 0; i < 3; i++ { // refused by net/http's handler, then at the door
		code, h, body := get()
		if code != 503 || h.Get("Retry-After") != "1" || !strings.Contains(body, `"reason":"OVERLOADED"`) ||
			!validRequestID.MatchString(h.Get("X-Request-Id")) || !validTraceparent.MatchString(h.Get("Traceparent")) {
			t.Errorf("refusal %d: %d %v %s", i, code, h, body)
		}
	}
	close(backend.release)
	if code := <-slow; code != 200 {
		t.Errorf("the slow call: %d", code)
	}
	if code, _, _ := get(); code != 200 {
		t.Errorf("after the slot freed: %d", code)
	}
	// Again: the connection goes to the door and back as often as the gateway sheds and admits.
	g.calls.slots <- struct{}{}
	if code, _, _ := get(); code != 503 {
		t.Errorf("shedding again: %d", code)
	}
	<-g.calls.slots
	if code, _, _ := get(); code != 200 {
		t.Errorf("admitting again: %d", code)
	}
	if opened != 1 {
		t.Errorf("%d connections: the connection did not go to the door and back", opened)
	}
	checkDoorRefusals(t, g, 4)
}
