package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apirequest"
)

// The request parsing the gateway does itself, beyond net/http and the generated handlers. Each
// fuzz test's seeds run in `go test ./...`; `go test -fuzz=FuzzX` explores further.

// Any Grpc-Timeout is refused with a 400 or becomes a deadline in the future, at most the maximum.
func FuzzGrpcTimeout(f *testing.F) {
	for _, seed := range []string{"5S", "100m", "1H", "0S", "1n", "99999999n", "-1S", "+5S", "S", "1x", "123456789S"} {
		f.Add(seed)
	}
	g := &Gateway{}
	g.cfg.MaxRequestTimeout = time.Minute
	f.Fuzz(func(t *testing.T, value string) {
		var deadline time.Time
		h := g.deadline(time.Second)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			deadline, _ = r.Context().Deadline()
		}))
		r := httptest.NewRequest("GET", "/api/v1/rooms", nil)
		r.Header[grpcTimeoutHeader] = []string{value}
		w := httptest.NewRecorder()
		// Measured from before the call, not from the handler: a timeout of microseconds may have
		// run out by the time the handler reads it, and is still a deadline in the future.
		start := time.Now()
		h.ServeHTTP(w, r)
		end := time.Now()
		if w.Code != http.StatusBadRequest && value != "" && (!deadline.After(start) || deadline.After(end.Add(time.Minute))) {
			t.Errorf("%q: %d, a deadline %v after the call began (it took %v)", value, w.Code, deadline.Sub(start), end.Sub(start))
		}
	})
}

// Any query and body are read into the request message or refused naming a field, never a
// panic; a refusal's text reads back as the field it names.
func FuzzQueryAndBody(f *testing.F) {
	f.Add("from=2026-11-24T13:00:05+0100&property_id=BER1", `{"completed_at":"2026-11-24 13:00:05Z","action":"COMPLETE"}`)
	f.Add("to=2026-13-01", `{"completedAt":"yesterday"}`)
	f.Add("%zz=1", `[1,2]`)
	f.Add("from=1&from=2", `{"a":1} {"b":2}`)
	f.Fuzz(func(t *testing.T, query, body string) {
		values, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		for _, err := range []error{
			(&apirequest.QueryParser{}).Parse(&hotelv1.GetIssueStatsRequest{}, values, utilities.NewDoubleArray(nil)),
			apiMarshaler{&runtime.JSONPb{}}.NewDecoder(strings.NewReader(body)).Decode(&hotelv1.ApplyScheduleActionRequest{}),
		} {
			if err == nil || errors.Is(err, io.EOF) {
				continue
			}
			st := apierror.WithDetails(status.New(codes.InvalidArgument, err.Error()))
			if _, fields := reasonsAndFields(t, st); len(fields) != 1 {
				t.Errorf("%q %q: %v names %v", query, body, err, fields)
			}
		}
	})
}

func FuzzReadJSONBody(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":1}`, ` null `, `{"a":1} x`, `{"a":`, `[]`, "", strings.Repeat("[", 1000)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("POST", "/api/v1/issues", strings.NewReader(body))
		w := httptest.NewRecorder()
		st := readJSONBody(w, r)
		if st != nil {
			apierror.Write(w, st)
			if w.Code < 400 || w.Code >= 500 {
				t.Errorf("%q: refused with %d", body, w.Code)
			}
		}
		if len(body) > apierror.MaxBodyBytes && st == nil {
			t.Errorf("a body of %d bytes was accepted", len(body))
		}
	})
}

// Header rules: any header name and value is either passed on or refused with a 4xx naming it,
// never a panic or a 5xx.
func FuzzCheckHeaders(f *testing.F) {
	f.Add("X-Client-Id", "billing-1")
	f.Add("X-Client-Id", "bad id")
	f.Add("If-Match", strings.Repeat("a", 9<<10))
	f.Add("Cookie", "\xff\xfe")
	f.Fuzz(func(t *testing.T, name, value string) {
		r := httptest.NewRequest("GET", "/api/v1/rooms", nil)
		r.Header[name] = []string{value}
		w := httptest.NewRecorder()
		checkHeaders(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})).ServeHTTP(w, r)
		if w.Code != http.StatusOK && (w.Code < 400 || w.Code >= 500) {
			t.Errorf("%q: %q answered %d", name, value, w.Code)
		}
	})
}
