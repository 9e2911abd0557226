package main

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Connection bounds of the REST listener (docs/operations.md, "Connections"). Each open
// connection costs the gateway a goroutine and its read and write buffers (~20 KB idle, more while
// a request runs): with thousands of callers, the connections, not the requests, are what fills
// the memory. Past maxConnections the listener stops accepting and further connections wait in
// the kernel's accept queue until one closes, so memory and goroutines stay bounded whatever the
// number of callers; the requests on the connections held are still admitted or refused (503)
// at once by admission control.
const (
	defaultMaxConnections = 1024
	readHeaderTimeout     = 5 * time.Second  // a caller that sends no complete header in time is cut off
	readTimeout           = 30 * time.Second // the whole request, body included (1 MiB at ~35 KB/s)
	// Longer than a load balancer's usual idle timeout (60 s), so the balancer closes first and
	// never sends on a connection the gateway is closing.
	idleTimeout = 120 * time.Second
)

// newHTTPServer is the REST server with the timeouts above; writes get the request timeout
// plus time to send the answer.
func newHTTPServer(handler http.Handler, requestTimeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      requestTimeout + 5*time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    http.DefaultMaxHeaderBytes,
	}
}

// limitConnections returns a listener that has at most max connections open at once (0: no
// limit); Accept waits for one to close beyond that.
func limitConnections(l net.Listener, max int) net.Listener {
	if max <= 0 {
		return l
	}
	return &limitedListener{Listener: l, slots: make(chan struct{}, max)}
}

type limitedListener struct {
	net.Listener
	slots chan struct{}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	l.slots <- struct{}{}
	conn, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: conn, release: func() { <-l.slots }}, nil
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

// CloseWrite half-closes the connection (net/http and the door do before closing, so the
// client reads the last answer rather than a reset).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
