// Command balancer is the rollout test's stand-in for a Kubernetes Service: it spreads HTTP
// requests round-robin over the endpoints that are ready, and it learns of changes late, as
// kube-proxy and ingress controllers do. An endpoint is added when the test says so and routed
// to once its readiness probe (GET /api/v1/health, polled every 100 ms) has passed; it keeps
// getting requests for -lag after the test marks it terminating or after its probe last passed.
//
//	balancer -listen 127.0.0.1:0 -lag 1s
//	POST /_lb/add?endpoint=http://127.0.0.1:8081        add an endpoint
//	POST /_lb/terminate?endpoint=http://127.0.0.1:8081  drop it after -lag
//	GET  /_lb/endpoints                                 {"http://...": "routed" | "waiting" | "removed"}
//	anything else                                       proxied (streams are flushed as they come)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

type endpoint struct {
	target      *url.URL
	lastReady   time.Time // last passing probe
	terminating time.Time // when the test marked it terminating (zero: not)
}

type balancer struct {
	lag    time.Duration
	mu     sync.Mutex
	eps    map[string]*endpoint
	next   atomic.Uint64
	client *http.Client
}

// routed says whether requests may go to e now: probed ready within the lag, and not
// terminating for longer than the lag.
func (b *balancer) routed(e *endpoint, now time.Time) bool {
	if e.lastReady.IsZero() || now.Sub(e.lastReady) > b.lag {
		return false
	}
	return e.terminating.IsZero() || now.Sub(e.terminating) <= b.lag
}

func (b *balancer) pick() *url.URL {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	var ready []*url.URL
	for _, e := range b.eps {
		if b.routed(e, now) {
			ready = append(ready, e.target)
		}
	}
	if len(ready) == 0 {
		return nil
	}
	// Map order is random; sort-free round-robin is good enough when picks are spread by next.
	return ready[int(b.next.Add(1)%uint64(len(ready)))]
}

func (b *balancer) probe() {
	for range time.Tick(100 * time.Millisecond) {
		b.mu.Lock()
		var targets []*endpoint
		for _, e := range b.eps {
			targets = append(targets, e)
		}
		b.mu.Unlock()
		for _, e := range targets {
			resp, err := b.client.Get(e.target.String() + "/api/v1/health")
			if err != nil {
				continue
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				b.mu.Lock()
				e.lastReady = time.Now()
				b.mu.Unlock()
			}
		}
	}
}

func (b *balancer) control(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	name := r.URL.Query().Get("endpoint")
	switch r.URL.Path {
	case "/_lb/add":
		target, err := url.Parse(name)
		if err != nil || target.Host == "" {
			http.Error(w, "bad endpoint", http.StatusBadRequest)
			return
		}
		b.eps[name] = &endpoint{target: target}
	case "/_lb/terminate":
		if e, ok := b.eps[name]; ok {
			e.terminating = time.Now()
		}
	case "/_lb/endpoints":
		now := time.Now()
		out := map[string]string{}
		for n, e := range b.eps {
			switch {
			case b.routed(e, now):
				out[n] = "routed"
			case !e.terminating.IsZero():
				out[n] = "removed"
			default:
				out[n] = "waiting"
			}
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	default:
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "listen address")
	lag := flag.Duration("lag", time.Second, "how late the balancer learns of readiness and termination")
	flag.Parse()
	b := &balancer{lag: *lag, eps: map[string]*endpoint{}, client: &http.Client{Timeout: time.Second}}
	go b.probe()
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			if target, ok := r.In.Context().Value(targetKey{}).(*url.URL); ok {
				r.SetURL(target)
			}
		},
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "balancer: "+err.Error(), http.StatusBadGateway)
		},
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("balancer listening on http://%s\n", listener.Addr())
	log.Fatal(http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Path) > 5 && r.URL.Path[:5] == "/_lb/" {
			b.control(w, r)
			return
		}
		target := b.pick()
		if target == nil {
			http.Error(w, "balancer: no ready endpoint", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r.WithContext(contextWithTarget(r, target)))
	})))
}

type targetKey struct{}

func contextWithTarget(r *http.Request, target *url.URL) context.Context {
	return context.WithValue(r.Context(), targetKey{}, target)
}
