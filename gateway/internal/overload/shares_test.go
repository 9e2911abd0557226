package overload

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// blocked is a handler that holds its request until release is closed.
type blocked struct{ release chan struct{} }

func (b blocked) ServeHTTP(w http.ResponseWriter, _ *http.Request) { <-b.release }

func requestFrom(method, path, client string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	if client != "" {
		r.Header.Set(ClientIDHeader, client)
	}
	return r
}

func TestStreamsHaveALimitPerGatewayAndPerClient(t *testing.T) {
	s := NewStreamAdmission(2, 1, "", prometheus.NewRegistry())
	hold := blocked{make(chan struct{})}
	h := s.Limit(hold)
	done := make(chan struct{}, 2)
	for _, client := range []string{"a", "b"} {
		go func() {
			h.ServeHTTP(httptest.NewRecorder(), requestFrom("GET", "/api/v1/changes/stream", client))
			done <- struct{}{}
		}()
	}
	waitUntil(t, "two streams", func() bool { return s.streams.taken() == 2 })
	for client, want := range map[string]string{"a": "this client already holds 1", "c": "this gateway already carries 2"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, requestFrom("GET", "/api/v1/changes/stream", client))
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), want) ||
			!strings.Contains(rec.Body.String(), "WATCHER_LIMIT") {
			t.Errorf("client %s: %d %s", client, rec.Code, rec.Body.String())
		}
		// A client past its share loses its connection too; past the gateway's total, it keeps it.
		if closes := rec.Header().Get("Connection") == "close"; closes != (client == "a") {
			t.Errorf("client %s: Connection %q", client, rec.Header().Get("Connection"))
		}
	}
	close(hold.release)
	<-done
	<-done
	if s.streams.taken() != 0 || len(s.streams.held) != 0 {
		t.Errorf("after the streams ended: %d streams, %d clients", s.streams.taken(), len(s.streams.held))
	}
}
