package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The door refuses requests at the connection, before net/http, while the gateway sheds (issue
// 40: a refusal must cost at most a tenth of a served request). Through net/http a refusal costs
// what any request does — reading and parsing it into an http.Request, its header map and URL,
// the response's header handling and buffers — which a profile put at 86 % of the refusal.
//
// While admission would refuse a request at once (admission.shedding), a connection accepted is
// kept by the door instead of being given to net/http: the door reads each request head into a
// buffer of its own, and if the route is one admission guards and the gateway still sheds,
// writes the pre-rendered 503 (the same body and Retry-After as admission's, with a
// Content-Length, an X-Request-Id and a Traceparent, as every answer has) and reads the next
// request on the same connection. Whatever it does not fully understand, or a request it would
// not refuse, goes to net/http with the bytes already read, on the same connection: a body it
// has not got whole, chunked bodies, Expect, Upgrade, HTTP/1.0, escaped or uncleaned paths,
// repeated headers. A connection net/http holds comes to the door when admission refuses a
// request on it while the gateway sheds (takeOver).
type door struct {
	calls     func() *admission
	admitted  *http.ServeMux // the route table, each route's handler a doorRoute saying whether admission guards it
	draining  func() bool    // answers close their connection (main.go: keep-alives off while draining)
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	answered  prometheus.Counter // refusals written by the door (a part of admission's shed count)
	mu        sync.RWMutex
	cache     map[string]bool // method and path: admits' answer
}

type doorRoute bool

func (doorRoute) ServeHTTP(http.ResponseWriter, *http.Request) {}

const (
	doorBufferSize = 4096 // a request head (and small body) the door reads whole, as net/http's buffer
	// After the last answer on a connection it closes, the time the client has to close its end
	// before the door does (as net/http: closing with unread data would reset the connection and
	// could lose the answer).
	doorLingerTimeout = 500 * time.Millisecond
)

// door opens the gateway's door on l: net/http serves the connections it returns.
func (g *gateway) door(l net.Listener) net.Listener {
	d := &door{
		calls:     func() *admission { return g.calls },
		admitted:  g.doorRoutes(),
		cache:     map[string]bool{},
		draining:  g.drain.draining.Load,
		requests:  g.metrics.requests,
		durations: g.metrics.duration,
		answered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hotel_gateway_door_refusals_total",
			Help: "Refusals (503 OVERLOADED) the gateway wrote on the connection itself rather than through net/http; part of hotel_gateway_requests_shed_total.",
		}),
	}
	dl := &doorListener{Listener: l, door: d, ready: make(chan accepted), closed: make(chan struct{}),
		kept: map[net.Conn]struct{}{}}
	g.metrics.registry.MustRegister(d.answered)
	g.calls.takeOver = dl.takeOver
	go dl.acceptLoop()
	return dl
}

// doorRoutes is the route table with, for each route, whether admission guards it.
func (g *gateway) doorRoutes() *http.ServeMux {
	admitted := http.NewServeMux()
	for _, rt := range g.routes() {
		admitted.Handle(rt.pattern, doorRoute(rt.admitted))
	}
	return admitted
}

type accepted struct {
	conn net.Conn
	err  error
}

// doorListener accepts connections; while the gateway sheds it keeps them at the door, otherwise
// (and when the door hands one over) Accept gives them to net/http.
type doorListener struct {
	net.Listener
	door      *door
	ready     chan accepted
	closed    chan struct{}
	closeOnce sync.Once
	mu        sync.Mutex
	kept      map[net.Conn]struct{} // connections at the door, closed with the listener
}

func (l *doorListener) acceptLoop() {
	for {
		conn, err := l.Listener.Accept()
		if err == nil && l.door.calls().shedding(peerKey(conn)) {
			if l.keep(conn) {
				go l.serve(conn, nil, readHeaderTimeout)
			}
			continue
		}
		select {
		case l.ready <- accepted{conn, err}:
		case <-l.closed:
			if conn != nil {
				conn.Close()
			}
			return
		}
		if errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

func (l *doorListener) Accept() (net.Conn, error) {
	select {
	case a := <-l.ready:
		return a.conn, a.err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and closes the connections kept at the door (they are between requests
// or answering a refusal; net/http's are its own to close).
func (l *doorListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() {
		close(l.closed)
		l.mu.Lock()
		defer l.mu.Unlock()
		for conn := range l.kept {
			conn.Close()
		}
		l.kept = nil
	})
	return err
}

func (l *doorListener) keep(conn net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kept == nil {
		conn.Close()
		return false
	}
	l.kept[conn] = struct{}{}
	return true
}

func (l *doorListener) release(conn net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.kept, conn)
}

// handOver gives conn to net/http, which reads buffered first.
func (l *doorListener) handOver(conn net.Conn, buffered []byte) {
	l.release(conn)
	_ = conn.SetDeadline(time.Time{}) // net/http sets its own
	if len(buffered) > 0 {
		conn = &bufferedConn{Conn: conn, buffered: bytes.Clone(buffered)}
	}
	select {
	case l.ready <- accepted{conn: conn}:
	case <-l.closed:
		conn.Close()
	}
}

// serve reads requests on conn and refuses them while the gateway sheds; the first one it does
// not refuse goes to net/http with the connection. The first request must begin within wait.
func (l *doorListener) serve(conn net.Conn, buffered []byte, wait time.Duration) {
	buf := make([]byte, doorBufferSize)
	out := make([]byte, 0, 1024)
	n := copy(buf, buffered)
	peer := peerKey(conn)
	_ = conn.SetDeadline(time.Now().Add(wait))
	for {
		req, verdict := readHead(buf[:n])
		if verdict == headIncomplete {
			if n == len(buf) {
				l.handOver(conn, buf[:n])
				return
			}
			read, err := conn.Read(buf[n:])
			if err != nil {
				l.release(conn)
				conn.Close()
				return
			}
			if n == 0 { // a request begins: its head has readHeaderTimeout, as in net/http
				_ = conn.SetReadDeadline(time.Now().Add(readHeaderTimeout))
			}
			n += read
			continue
		}
		client := peer
		if req.clientID != nil {
			client = "id " + string(req.clientID)
		}
		if verdict == headOther || !l.door.admits(req) || !l.door.calls().shedding(client) {
			l.handOver(conn, buf[:n])
			return
		}
		closing := req.close || l.door.draining()
		out = l.door.refuse(out[:0], req, closing)
		if _, err := conn.Write(out); err != nil || closing {
			l.release(conn)
			lingerClose(conn)
			return
		}
		n = copy(buf, buf[req.length:n])
		_ = conn.SetDeadline(time.Now().Add(idleTimeout))
	}
}

// admits says whether req's route goes through admission (the route table's say). The answers
// for the first routeCacheSize method and path pairs are kept: the table's lookup allocates
// (an http.Request, the strings) and was a third of a refusal's CPU.
func (d *door) admits(req doorRequest) bool {
	var buf [256]byte
	key := append(append(append(buf[:0], req.method...), ' '), req.path...)
	d.mu.RLock()
	admitted, known := d.cache[string(key)] // no allocation for the look-up
	d.mu.RUnlock()
	if known {
		return admitted
	}
	h, _ := d.admitted.Handler(&http.Request{Method: string(req.method), URL: &url.URL{Path: string(req.path)}})
	route, _ := h.(doorRoute)
	d.mu.Lock()
	if len(d.cache) < routeCacheSize {
		d.cache[string(key)] = bool(route)
	}
	d.mu.Unlock()
	return bool(route)
}

// routeCacheSize bounds the door's cache of route answers: paths carry ids, so a cache of every
// one would grow with what clients send.
const routeCacheSize = 4096

// refuse appends the refusal of req to out and counts it as admission's refusals are counted.
func (d *door) refuse(out []byte, req doorRequest, closing bool) []byte {
	a := d.calls()
	now := time.Now()
	a.shed.Inc()
	a.refusals.note(now)
	d.answered.Inc()
	method := methodLabel(string(req.method))
	d.requests.WithLabelValues(method, otherLabel, "503").Inc()
	var requestID []byte
	if req.requestID != nil && validRequestID.Match(req.requestID) {
		requestID = req.requestID
	}
	out = appendRefusalHead(out, a, now, requestID)
	// No span is recorded for a refusal at the door: the caller's trace (or a new one), a span id
	// of its own, not sampled.
	out = append(out, "00-"...)
	if req.traceparent != nil && validTraceparent.Match(req.traceparent) && !bytes.Equal(req.traceparent[3:35], zeroTraceID) {
		out = append(out, req.traceparent[3:35]...)
	} else {
		out = appendRandomHex(out, 16)
	}
	out = append(out, '-')
	out = appendRandomHex(out, 8)
	out = append(out, "-00"...)
	out = appendRefusalTail(out, a, bytes.Equal(req.method, []byte(http.MethodHead)), closing)
	d.durations.WithLabelValues(method, otherLabel).Observe(time.Since(now).Seconds())
	return out
}

// appendRefusalHead appends admission's refusal up to the Traceparent header's value; requestID
// nil: a new one.
func appendRefusalHead(out []byte, a *admission, now time.Time, requestID []byte) []byte {
	out = append(out, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: "...)
	out = append(out, a.retryAfterValue[0]...)
	out = append(out, "\r\nDate: "...)
	out = appendDate(out, now)
	out = append(out, "\r\nX-Request-Id: "...)
	if requestID != nil {
		out = append(out, requestID...)
	} else {
		out = appendRandomHex(out, 16)
	}
	return append(out, "\r\nTraceparent: "...)
}

// appendRefusalTail appends the rest of the refusal after the Traceparent header's value.
func appendRefusalTail(out []byte, a *admission, head, closing bool) []byte {
	out = append(out, "\r\nContent-Length: "...)
	out = strconv.AppendInt(out, int64(len(a.body)), 10)
	if closing {
		out = append(out, "\r\nConnection: close"...)
	}
	out = append(out, "\r\n\r\n"...)
	if !head {
		out = append(out, a.body...)
	}
	return out
}

// takeOver answers admission's refusal of r on net/http's connection itself and keeps the
// connection at the door, while the gateway sheds: the client's next requests on it, its retries
// first, cost a door refusal instead of net/http's. The request has been read whole (bodies are,
// before admission: routes.go). observe counts it (the request is marked shed), with the
// X-Request-Id and Traceparent it set. False: net/http answers as usual.
func (l *doorListener) takeOver(w http.ResponseWriter, r *http.Request) bool {
	if r.ProtoMajor != 1 || r.ProtoMinor != 1 || r.Close || l.door.draining() {
		return false
	}
	h := w.Header()
	requestID, traceparent := h.Get("X-Request-Id"), h.Get(traceparentHeader)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	buffered, _ := rw.Reader.Peek(rw.Reader.Buffered())
	if earlier, ok := conn.(*bufferedConn); ok { // handed over before: one wrapper at most, whatever the transitions
		buffered = append(bytes.Clone(buffered), earlier.buffered...) // what net/http read came first
		conn = earlier.Conn
	}
	out := appendRefusalHead(make([]byte, 0, 1024), l.door.calls(), time.Now(), []byte(requestID))
	out = append(out, traceparent...)
	out = appendRefusalTail(out, l.door.calls(), r.Method == http.MethodHead, false)
	l.door.answered.Inc()
	if _, err := conn.Write(out); err != nil {
		conn.Close()
		return true
	}
	if !l.keep(conn) {
		return true
	}
	if len(buffered) > doorBufferSize/2 {
		go l.handOver(conn, buffered)
	} else {
		go l.serve(conn, bytes.Clone(buffered), idleTimeout)
	}
	return true
}

var zeroTraceID = bytes.Repeat([]byte("0"), 32)

func appendRandomHex(out []byte, n int) []byte {
	var b [16]byte
	for i := 0; i < n; i += 8 {
		v := rand.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return hex.AppendEncode(out, b[:n])
}

// The Date header, formatted once a second.
var doorDate struct {
	mu     sync.Mutex
	second int64
	value  atomic.Pointer[[]byte]
}

func appendDate(out []byte, now time.Time) []byte {
	if v := doorDate.value.Load(); v != nil && atomic.LoadInt64(&doorDate.second) == now.Unix() {
		return append(out, *v...)
	}
	formatted := now.UTC().AppendFormat(nil, http.TimeFormat)
	doorDate.mu.Lock()
	doorDate.value.Store(&formatted)
	atomic.StoreInt64(&doorDate.second, now.Unix())
	doorDate.mu.Unlock()
	return append(out, formatted...)
}

// lingerClose closes conn after its last answer: the write side at once, then the whole once the
// client has closed its side or doorLingerTimeout has passed.
func lingerClose(conn net.Conn) {
	if cw, ok := conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		_ = conn.SetReadDeadline(time.Now().Add(doorLingerTimeout))
		var discard [512]byte
		for read := 0; read < 64<<10; {
			n, err := conn.Read(discard[:])
			if err != nil {
				break
			}
			read += n
		}
	}
	conn.Close()
}

// peerKey is clientKey for a request without X-Client-Id on conn.
func peerKey(conn net.Conn) string {
	if addr, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return "peer " + addr.IP.String()
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr().String())
	if err != nil {
		return "peer " + conn.RemoteAddr().String()
	}
	return "peer " + host
}

// bufferedConn is a connection handed to net/http with the bytes the door has read from it.
type bufferedConn struct {
	net.Conn
	buffered []byte
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if len(c.buffered) > 0 {
		n := copy(p, c.buffered)
		c.buffered = c.buffered[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// doorRequest is what the door reads of a request head.
type doorRequest struct {
	method, path                     []byte
	clientID, requestID, traceparent []byte // nil: not sent
	close                            bool   // Connection: close
	length                           int    // of the head and the body
}

type headVerdict int

const (
	headIncomplete headVerdict = iota // more bytes needed
	headSimple                        // a request the door can answer
	headOther                         // net/http's to read
)

var (
	crlf       = []byte("\r\n")
	headEnd    = []byte("\r\n\r\n")
	http11     = []byte("HTTP/1.1")
	bareLFHead = []byte("\n\n")
)

// readHead reads the request at the start of b: an HTTP/1.1 request in origin form, its head
// complete and its body (Content-Length) too. Anything it does not read, or reads twice, is
// headOther.
func readHead(b []byte) (req doorRequest, verdict headVerdict) {
	end := bytes.Index(b, headEnd)
	if end < 0 {
		if bytes.Contains(b, bareLFHead) || (len(b) > 0 && !isToken(b[0])) {
			return req, headOther
		}
		return req, headIncomplete
	}
	head := b[:end+2]
	line, rest, _ := bytes.Cut(head, crlf)
	method, line, ok1 := bytes.Cut(line, []byte{' '})
	target, version, ok2 := bytes.Cut(line, []byte{' '})
	if !ok1 || !ok2 || len(method) == 0 || !allTokens(method) || !bytes.Equal(version, http11) || !cleanPath(target) {
		return req, headOther
	}
	req.method = method
	req.path, _, _ = bytes.Cut(target, []byte{'?'})
	contentLength, host := -1, false
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, crlf)
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || len(name) == 0 || !allTokens(name) {
			return req, headOther // includes obsolete line folding (a line starting with a space)
		}
		value = bytes.Trim(value, " \t")
		var seen bool
		switch {
		case bytes.EqualFold(name, []byte("Host")):
			seen, host = host, true
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value))
			if contentLength >= 0 || err != nil || n < 0 || n > doorBufferSize {
				return req, headOther
			}
			contentLength = n
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				req.close = true
			} else if !bytes.EqualFold(value, []byte("keep-alive")) {
				return req, headOther
			}
		case bytes.EqualFold(name, []byte("X-Client-Id")):
			seen, req.clientID = req.clientID != nil, value
			if !validClientID.Match(value) {
				return req, headOther // net/http's path answers 400 naming it
			}
		case bytes.EqualFold(name, []byte("X-Request-Id")):
			seen, req.requestID = req.requestID != nil, value
		case bytes.EqualFold(name, []byte("Traceparent")):
			seen, req.traceparent = req.traceparent != nil, value
		case bytes.EqualFold(name, []byte("Transfer-Encoding")), bytes.EqualFold(name, []byte("Expect")),
			bytes.EqualFold(name, []byte("Upgrade")):
			return req, headOther
		}
		if seen {
			return req, headOther
		}
	}
	if !host {
		return req, headOther // net/http answers 400
	}
	req.length = end + len(headEnd) + max(contentLength, 0)
	if req.length > doorBufferSize {
		return req, headOther
	}
	if req.length > len(b) {
		return req, headIncomplete
	}
	return req, headSimple
}

// cleanPath: an absolute path the route table matches as it is (nothing escaped, no dot or empty
// segments for net/http to clean or redirect, no control or non-ASCII bytes).
func cleanPath(target []byte) bool {
	path, _, _ := bytes.Cut(target, []byte{'?'})
	if len(path) == 0 || path[0] != '/' || bytes.Contains(path, []byte("//")) || bytes.Contains(path, []byte("/.")) {
		return false
	}
	for _, c := range target {
		if c <= ' ' || c >= 0x7f || c == '%' || c == '#' {
			return false
		}
	}
	return true
}

func allTokens(b []byte) bool {
	for _, c := range b {
		if !isToken(c) {
			return false
		}
	}
	return true
}

// isToken: a byte of an HTTP token (RFC 9110, tchar).
func isToken(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0
}
