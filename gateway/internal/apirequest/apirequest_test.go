package apirequest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
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

// fieldOf is the one field a parse error names, as the API answers it.
func fieldOf(t *testing.T, err error) (field, description string) {
	t.Helper()
	for _, d := range apierror.WithDetails(status.New(codes.InvalidArgument, err.Error())).Details() {
		if br, ok := d.(*errdetails.BadRequest); ok && len(br.FieldViolations) == 1 {
			return br.FieldViolations[0].Field, br.FieldViolations[0].Description
		}
	}
	t.Fatalf("%v names no field", err)
	return "", ""
}

func decode(body string, msg proto.Message) error { return Decode([]byte(body), msg) }

func TestDateTimesAreReadInQueryAndBodyAndABadOneIsNamed(t *testing.T) {
	var stats hotelv1.GetIssueStatsRequest
	err := (&QueryParser{}).Parse(&stats, url.Values{"property_id": {"BER1"}, "from": {"2026-10-26T08:04:41.676581 0000"},
		"to": {"2026-10-27T08:04:41Z"}}, utilities.NewDoubleArray(nil))
	if err != nil || stats.From.AsTime().Format(time.RFC3339Nano) != "2026-10-26T08:04:41.676581Z" ||
		stats.To.AsTime().Format(time.RFC3339) != "2026-10-27T08:04:41Z" || stats.PropertyId != "BER1" {
		t.Errorf("%v %v", err, &stats)
	}
	var action hotelv1.ApplyScheduleActionRequest
	if err := decode(`{"action": "COMPLETE", "completedAt": "2026-10-26T10:04:41+0200"}`, &action); err != nil ||
		action.CompletedAt.AsTime().Format(time.RFC3339) != "2026-10-26T08:04:41Z" {
		t.Errorf("%v %v", err, &action)
	}
	for query, field := range map[string]string{"from=2026-10-26T08:04:41": "from", "to=tomorrow": "to"} {
		values, _ := url.ParseQuery(query)
		err := (&QueryParser{}).Parse(&hotelv1.GetIssueStatsRequest{}, values, utilities.NewDoubleArray(nil))
		if got, description := fieldOf(t, err); got != field || !strings.Contains(description, "RFC 3339") {
			t.Errorf("%s: %s %s", query, got, description)
		}
	}
	err = decode(`{"completedAt": "2026-10-26"}`, &hotelv1.ApplyScheduleActionRequest{})
	if got, description := fieldOf(t, err); got != "completed_at" || strings.Contains(description, "2006-01-02") {
		t.Errorf("body: %s %s", got, description)
	}
}

func TestUnprefixedEnumQueryValuesReadAsTheirFullNames(t *testing.T) {
	for value, want := range map[string]hotelv1.ChangeView{
		"FULL": hotelv1.ChangeView_CHANGE_VIEW_FULL, "BASIC": hotelv1.ChangeView_CHANGE_VIEW_BASIC,
		"CHANGE_VIEW_DIFF": hotelv1.ChangeView_CHANGE_VIEW_DIFF, // the old spelling keeps working
	} {
		var req hotelv1.ListChangesRequest
		if err := (&QueryParser{}).Parse(&req, url.Values{"view": {value}}, utilities.NewDoubleArray(nil)); err != nil || req.View != want {
			t.Errorf("view=%s: %v %v", value, req.View, err)
		}
	}
	err := (&QueryParser{}).Parse(&hotelv1.ListChangesRequest{}, url.Values{"view": {"NOPE"}}, utilities.NewDoubleArray(nil))
	if field, description := fieldOf(t, err); field != "view" || !strings.Contains(description, "CHANGE_VIEW_FULL") {
		t.Errorf("view=NOPE: %s %s", field, description)
	}
}

func TestBodyErrorsNameTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"property_id": "BER1", "colour": "red"}`: "colour",
		`{"interval_unit": "FORTNIGHT"}`:           "interval_unit",
		`{"intervalUnit": 3.5}`:                    "interval_unit",
		`{"name": "a", "name": "b"}`:               "name",
		`{"name": "a"} {"name": "b"}`:              "body",
		`{"name": `:                                "body",
		`[1]`:                                      "body",
	} {
		if field, _ := fieldOf(t, decode(body, &hotelv1.CreateScheduleRequest{})); field != want {
			t.Errorf("%s: names %q, want %q", body, field, want)
		}
	}
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
