package changestream

import (
	"net/http/httptest"
	"testing"
)

// Change-stream requests: query parameters and headers either make a WatchChangesRequest or an
// error, never a panic.
func FuzzWatchRequest(f *testing.F) {
	f.Add("resource_type=ISSUE&after=abc", "text/event-stream", "42")
	f.Add("resource_type=NOPE", "text/html, text/event-stream;q=0.9", "")
	f.Add("%zz", "", " 7 ")
	f.Fuzz(func(t *testing.T, query, accept, lastEventID string) {
		r := httptest.NewRequest("GET", Path, nil)
		r.URL.RawQuery = query
		r.Header.Set("Accept", accept)
		r.Header.Set("Last-Event-ID", lastEventID)
		_ = acceptsEventStream(r)
		req, err := watchRequest(r)
		if err == nil && req == nil {
			t.Error("no request and no error")
		}
	})
}
