package apirequest

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"

	"hotel/gateway/internal/apierror"
)

// dateTimeForm is what every refused date-time is told to look like (docs/api.md, "Dates and times").
const dateTimeForm = "an RFC 3339 date-time with a time zone offset, e.g. 2026-10-26T08:04:41Z or " +
	"2026-10-26T08:04:41.676581+00:00 (Z, ±hh:mm or ±hhmm; any number of fractional digits)"

// dateTime reads the ISO 8601 forms clients commonly send: RFC 3339, a "+0000"/"+00" offset
// (Python's strftime %z, Java's default), any number of fractional digits, a lowercase t or a space
// between date and time. A query string's unencoded "+" arrives as a space: read as "+" there.
// A value without an offset is refused: whose local time it is cannot be known.
var dateTime = regexp.MustCompile(
	`^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)$`)

// parseDateTime returns the value as protojson reads it (RFC 3339 in UTC, nanoseconds), or false.
func parseDateTime(value string) (string, bool) {
	m := dateTime.FindStringSubmatch(value)
	if m == nil {
		return "", false
	}
	offset := "Z"
	if m[4] == "" {
		offset = strings.Replace(m[5], " ", "+", 1) + m[6] + ":" + cmp.Or(m[7], "00")
	}
	// time.Parse takes any number of fractional digits, cut to the nanoseconds a Timestamp holds.
	t, err := time.Parse(time.RFC3339Nano, m[1]+"T"+m[2]+"."+cmp.Or(m[3], "0")+offset)
	if err != nil || t.Year() < 1 || t.Year() > 9999 {
		return "", false
	}
	return t.UTC().Format(time.RFC3339Nano), true
}

// badDateTime refuses a date-time, naming the form it must take (never a Go layout string).
func badDateTime(field, value string) *apierror.FieldError {
	if len(value) > 64 {
		value = value[:64] + "…"
	}
	return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: field,
		Description: fmt.Sprintf("%q must be %s", strings.ToValidUTF8(value, "\uFFFD"), dateTimeForm)}
}
