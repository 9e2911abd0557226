package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "hotel/gateway/gen/hotel/v1" // registers the request messages read by timestampFields
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

// timestampFields are the names (proto and JSON) of the google.protobuf.Timestamp fields of the
// API's request messages: query parameters and top-level body fields (GET /issues/stats?from=,
// the schedule action's completed_at). enumAliases maps, for each enum query parameter whose
// values all carry their type's prefix (view: CHANGE_VIEW_BASIC, CHANGE_VIEW_FULL), the value
// without it (BASIC, FULL) to the full name: every other enum travels unprefixed, so clients may
// send these that way too.
var timestampFields, enumAliases = requestFields()

// requestFields reads timestampFields and enumAliases from the top-level fields of every hotel.v1
// RPC's request message.
func requestFields() (timestamps map[string]string, aliases map[string]map[string]string) {
	timestamps, aliases = map[string]string{}, map[string]map[string]string{}
	protoregistry.GlobalFiles.RangeFilesByPackage("hotel.v1", func(file protoreflect.FileDescriptor) bool {
		for i := range file.Services().Len() {
			methods := file.Services().Get(i).Methods()
			for j := range methods.Len() {
				fields := methods.Get(j).Input().Fields()
				for k := range fields.Len() {
					f := fields.Get(k)
					if f.Message() != nil && f.Message().FullName() == "google.protobuf.Timestamp" {
						timestamps[string(f.Name())] = string(f.Name())
						timestamps[f.JSONName()] = string(f.Name())
					}
					if short := unprefixedValues(f); short != nil {
						aliases[string(f.Name())] = short
					}
				}
			}
		}
		return true
	})
	return timestamps, aliases
}

// unprefixedValues is, for an enum field, {value without prefix: value} when every value but
// *_UNSPECIFIED starts with the UNSPECIFIED one's prefix (CHANGE_VIEW_), else nil.
func unprefixedValues(f protoreflect.FieldDescriptor) map[string]string {
	if f.Enum() == nil {
		return nil
	}
	values := f.Enum().Values()
	prefix, found := strings.CutSuffix(string(values.Get(0).Name()), "UNSPECIFIED")
	if !found || prefix == "" {
		return nil
	}
	out := map[string]string{}
	for i := 1; i < values.Len(); i++ {
		name := string(values.Get(i).Name())
		short, ok := strings.CutPrefix(name, prefix)
		if !ok {
			return nil
		}
		out[short] = name
	}
	return out
}

// normalizeTimestamps rewrites every date-time of a request (query parameters and top-level JSON
// body fields) into the RFC 3339 form the generated handlers parse, and unprefixed enum query
// values into their full names, or refuses the request with a BadRequest naming the field and
// the expected form (never a Go layout string).
func normalizeTimestamps(r *http.Request) *status.Status {
	query := r.URL.Query()
	rewritten := false
	for key, values := range query {
		for i, v := range values {
			if full, ok := enumAliases[key][v]; ok {
				values[i], rewritten = full, true
			}
			if field, ok := timestampFields[key]; ok && v != "" {
				normal, ok := parseDateTime(v)
				if !ok {
					return badDateTime(field, v)
				}
				values[i], rewritten = normal, true
			}
		}
	}
	if rewritten {
		r.URL.RawQuery = query.Encode()
	}
	return normalizeBodyTimestamps(r)
}

// normalizeBodyTimestamps does the same for the top-level fields of a JSON object body (already
// read into memory by readJSONBody). A body with nothing to rewrite is passed on as it came.
func normalizeBodyTimestamps(r *http.Request) *status.Status {
	body, ok := r.Body.(bodyReader)
	if !ok || !slices.ContainsFunc(quotedTimestampFields, func(name []byte) bool { return bytes.Contains(body.raw, name) }) {
		return nil // most bodies name no timestamp field: nothing to parse twice
	}
	var object map[string]json.RawMessage
	if json.Unmarshal(body.raw, &object) != nil {
		return nil // not an object: the handler names what is wrong with it
	}
	changed := false
	for key, value := range object {
		field, ok := timestampFields[key]
		var text string
		if !ok || json.Unmarshal(value, &text) != nil || text == "" {
			continue
		}
		normal, ok := parseDateTime(text)
		if !ok {
			return badDateTime(field, text)
		}
		if normal != text {
			object[key], _ = json.Marshal(normal)
			changed = true
		}
	}
	if changed {
		if rewritten, err := json.Marshal(object); err == nil {
			r.Body = newBodyReader(rewritten)
			r.ContentLength = int64(len(rewritten))
		}
	}
	return nil
}

// quotedTimestampFields are the timestampFields' names in quotes: a body that has none of them
// has no timestamp field (one that has perhaps only as a value: the parse finds nothing to do).
var quotedTimestampFields = func() (quoted [][]byte) {
	for name := range timestampFields {
		quoted = append(quoted, []byte(`"`+name+`"`))
	}
	return quoted
}()

func badDateTime(field, value string) *status.Status {
	if len(value) > 64 {
		value = value[:64] + "…"
	}
	description := "must be " + dateTimeForm
	return apierror.Field(codes.InvalidArgument, "INVALID_ARGUMENT",
		fmt.Sprintf("%s: %q %s", field, strings.ToValidUTF8(value, "\uFFFD"), description), field, description)
}

// bodyReader is a request body held in memory with its bytes (readJSONBody's).
type bodyReader struct {
	*bytes.Reader
	raw []byte
}

func newBodyReader(raw []byte) bodyReader { return bodyReader{bytes.NewReader(raw), raw} }

func (bodyReader) Close() error { return nil }
