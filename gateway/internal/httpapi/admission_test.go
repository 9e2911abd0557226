package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hotel/gateway/internal/overload"

	"github.com/prometheus/client_golang/prometheus"
)

func TestAServerRefusalKeepsItsRetryAfter(t *testing.T) {
	_, h := startBackend(t)
	rec, body := do(t, h, "GET", "/api/v1/issues/overloaded", nil)
	if rec.Code != 503 || body.Code != 14 || !strings.Contains(compact(rec), `"reason":"OVERLOADED"`) {
		t.Fatalf("got %d %s", rec.Code, compact(rec))
	}
	if got := rec.Header().Get("Retry-After"); got != "3" { // 2500 ms, rounded up to whole seconds
		t.Errorf("Retry-After %q", got)
	}
}

func TestGrpcTimeoutHeaderBecomesTheCallsDeadline(t *testing.T) {
	backend, h := startBackend(t)
	req := httptest.NewRequest("GET", "/api/v1/issues/slow", nil)
	req.Header.Set("Grpc-Timeout", "50m")
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	if rec.Code != 504 || time.Since(start) > time.Second {
		t.Errorf("got %d after %v", rec.Code, time.Since(start))
	}
	close(backend.release)
}

func TestWhileDrainingReadinessFailsAndEverythingElseIsServed(t *testing.T) {
	_, g := startBackendGateway(t)
	h := g.Handler()
	g.StartDraining()
	rec, body := do(t, h, "GET", "/api/v1/health", nil)
	if rec.Code != 503 || body.Code != 14 || !strings.Contains(compact(rec), `"reason":"SHUTTING_DOWN"`) {
		t.Errorf("readiness while draining: %d %s", rec.Code, compact(rec))
	}
	if rec, _ := do(t, h, "GET", "/api/v1/health/live", nil); rec.Code != 200 {
		t.Errorf("liveness while draining: %d", rec.Code)
	}
	if rec, _ := do(t, h, "GET", "/api/v1/issues/abc", nil); rec.Code != 200 {
		t.Errorf("a request while draining: %d %s", rec.Code, compact(rec))
	}
}

func TestProbesAreNeverRefused(t *testing.T) {
	_, g := startBackendGateway(t)
	g.calls = overload.NewAdmission(0, 0, overload.DefaultQueuePolicy, time.Second, prometheus.NewRegistry()) // every call refused
	h := g.Handler()
	if rec, _ := do(t, h, "GET", "/api/v1/issues/abc", nil); rec.Code != 503 {
		t.Errorf("a call with no slot to take: %d", rec.Code)
	}
	// Each probe reaches its answer: the gateway's own, or the (fake) server's.
	for _, probe := range []string{"/api/v1/health/live", "/api/v1/health", "/api/v1/health/startup"} {
		if rec, _ := do(t, h, "GET", probe, nil); strings.Contains(compact(rec), "OVERLOADED") {
			t.Errorf("%s while every call is refused: %d %s", probe, rec.Code, compact(rec))
		}
	}
}
