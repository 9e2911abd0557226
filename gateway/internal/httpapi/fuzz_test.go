package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"hotel/gateway/internal/apierror"
)

// The request parsing the gateway does itself, beyond net/http and the generated handlers. Each
// fuzz test's seeds run in `go test ./...`; `go test -fuzz=FuzzX` explores further.

func FuzzParseGrpcTimeout(f *testing.F) {
	for _, seed := range []string{"5S", "100m", "1H", "0S", "99999999n", "-1S", "+5S", "S", "1x", "123456789S"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		d, err := parseGrpcTimeout(value)
		if err == nil && d <= 0 {
			t.Errorf("%q: accepted as %v, which has already passed", value, d)
		}
	})
}

func FuzzParseDateTime(f *testing.F) {
	for _, seed := range []string{"2026-11-24", "2026-11-24T13:00:05Z", "2026-11-24T13:00:05+01:00",
		"2026-11-24T13:00:05.123456789Z", "2026-02-30", "24.11.2026", "", "9999-12-31T23:59:59Z"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		normal, ok := parseDateTime(value)
		if !ok {
			return
		}
		if _, err := time.Parse(time.RFC3339Nano, normal); err != nil {
			t.Errorf("%q: normalised to %q, which is not RFC 3339: %v", value, normal, err)
		}
	})
}

// A request's query and body rewritten by normalizeRequest are refused with a status, or passed
// on as a query that parses and a body that is still what readJSONBody let through.
func FuzzNormalizeRequest(f *testing.F) {
	f.Add("reported_after=2026-11-24&status=OPEN", `{"due_date":"2026-11-24","priority":"LOW"}`)
	f.Add("after=2026-13-01", `{"starts_at":"yesterday"}`)
	f.Add("%zz=1", `[1,2]`)
	f.Add("", `{"a":1} {"b":2}`)
	f.Fuzz(func(t *testing.T, query, body string) {
		r := httptest.NewRequest("POST", "/api/v1/issues", nil)
		r.URL.RawQuery = query
		r.Body = newBodyReader([]byte(body))
		if st := normalizeTimestamps(r); st != nil {
			return
		}
		if r.URL.RawQuery != query { // rewritten: what the generated handler reads must parse
			if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
				t.Errorf("%q rewritten to %q, which does not parse: %v", query, r.URL.RawQuery, err)
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
