package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
)

func TestParseDateTimeAcceptsRFC3339AndCommonISO8601Forms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2026-10-26T08:04:41Z", "2026-10-26T08:04:41Z"},
		{"2026-10-26t08:04:41z", "2026-10-26T08:04:41Z"},
		{"2026-10-26 08:04:41Z", "2026-10-26T08:04:41Z"},
		{"2026-10-26T08:04:41+00:00", "2026-10-26T08:04:41Z"},
		{"2026-10-26T08:04:41.676581+0000", "2026-10-26T08:04:41.676581Z"}, // OpenAPI Generator's Python client
		{"2026-10-26T08:04:41.676581 0000", "2026-10-26T08:04:41.676581Z"}, // the same with an unencoded "+"
		{"2026-10-26T10:04:41.5+02:00", "2026-10-26T08:04:41.5Z"},
		{"2026-10-26T03:04:41-05", "2026-10-26T08:04:41Z"},
		{"2026-10-26T08:04:41.123Z", "2026-10-26T08:04:41.123Z"}, // Java's Instant / OffsetDateTime
		{"2026-10-26T08:04:41.1234567891234Z", "2026-10-26T08:04:41.123456789Z"},
		{"2026-10-26T08:04:41.000000000Z", "2026-10-26T08:04:41Z"},
	} {
		got, ok := parseDateTime(c.in)
		if !ok || got != c.want {
			t.Errorf("parseDateTime(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestParseDateTimeRefusesWhatCannotBeRead(t *testing.T) {
	for _, in := range []string{
		"2026-10-26T08:04:41",       // no offset: whose local time?
		"2026-10-26T08:04:41.5",     // the same with a fraction
		"2026-10-26",                // a date, not a date-time
		"2026-13-26T08:04:41Z",      // month 13
		"2026-02-30T08:04:41Z",      // no such day
		"2026-10-26T25:04:41Z",      // hour 25
		"2026-10-26T08:04Z",         // no seconds
		"2026-10-26T08:04:41+0",     // a one-digit offset
		"2026-10-26T08:04:41+25:00", // an offset out of range
		"1761465881",                // Unix seconds
		"yesterday",
		"",
	} {
		if got, ok := parseDateTime(in); ok {
			t.Errorf("parseDateTime(%q) = %q, want refused", in, got)
		}
	}
}

func TestNormalizeTimestampsRewritesQueryAndBodyAndNamesTheBadField(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/issues/stats?property_id=BER1&from="+
		url.QueryEscape("2026-10-26T08:04:41.676581+0000")+"&to=2026-10-27T08:04:41Z", nil)
	if st := normalizeTimestamps(r); st != nil {
		t.Fatal(st)
	}
	q := r.URL.Query()
	if q.Get("from") != "2026-10-26T08:04:41.676581Z" || q.Get("to") != "2026-10-27T08:04:41Z" || q.Get("property_id") != "BER1" {
		t.Errorf("query %v", q)
	}

	body := []byte(`{"action": "COMPLETE", "completed_at": "2026-10-26T10:04:41+0200"}`)
	r = httptest.NewRequest(http.MethodPost, "/api/v1/schedules/1:applyAction", nil)
	r.Body = newBodyReader(body)
	if st := normalizeTimestamps(r); st != nil {
		t.Fatal(st)
	}
	rewritten, _ := io.ReadAll(r.Body)
	if string(rewritten) != `{"action":"COMPLETE","completed_at":"2026-10-26T08:04:41Z"}` {
		t.Errorf("body %s", rewritten)
	}

	for _, c := range []struct {
		target, body, field string
	}{
		{"/api/v1/issues/stats?from=2026-10-26T08:04:41", "", "from"},
		{"/api/v1/issues/stats?to=tomorrow", "", "to"},
		{"/api/v1/schedules/1:applyAction", `{"completedAt": "2026-10-26"}`, "completed_at"},
	} {
		r := httptest.NewRequest(http.MethodPost, c.target, nil)
		if c.body != "" {
			r.Body = newBodyReader([]byte(c.body))
		}
		st := normalizeTimestamps(r)
		if st == nil {
			t.Errorf("%s %s: accepted", c.target, c.body)
			continue
		}
		var violations []*errdetails.BadRequest_FieldViolation
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				violations = br.FieldViolations
			}
		}
		if len(violations) != 1 || violations[0].Field != c.field ||
			!strings.Contains(violations[0].Description, "RFC 3339") || strings.Contains(st.Message(), "2006-01-02") {
			t.Errorf("%s %s: %v %v", c.target, c.body, st.Message(), violations)
		}
	}
}

func TestUnprefixedEnumQueryValuesReadAsTheirFullNames(t *testing.T) {
	for _, c := range []struct{ query, want string }{
		{"view=FULL", "CHANGE_VIEW_FULL"},
		{"view=BASIC", "CHANGE_VIEW_BASIC"},
		{"view=DIFF", "CHANGE_VIEW_DIFF"},
		{"view=CHANGE_VIEW_FULL", "CHANGE_VIEW_FULL"}, // the old spelling keeps working
		{"view=NOPE", "NOPE"},                         // refused by the handler, naming view
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/changes?"+c.query, nil)
		if st := normalizeTimestamps(r); st != nil {
			t.Fatal(st)
		}
		if got := r.URL.Query().Get("view"); got != c.want {
			t.Errorf("%s: view=%s, want %s", c.query, got, c.want)
		}
	}
	if _, ok := enumAliases["resource_type"]; ok {
		t.Error("resource_type values are not prefixed: no aliases")
	}
}

func TestANullBodyIsReadAsAnEmptyObject(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/webhooks/x/ping", strings.NewReader(" null\n"))
	if st := readJSONBody(httptest.NewRecorder(), r); st != nil {
		t.Fatal(st)
	}
	if body, _ := io.ReadAll(r.Body); string(body) != "{}" {
		t.Errorf("body %q", body)
	}
}
