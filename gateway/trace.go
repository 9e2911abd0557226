package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
)

// W3C Trace Context (https://www.w3.org/TR/trace-context/), by hand: the gateway only needs to
// continue or start a trace, give its hop a span id and pass both on; the OpenTelemetry SDK would
// add a dependency tree for that (docs/decisions.md, "Tracing and logs (issue 27)").

const (
	traceparentHeader = "Traceparent"
	tracestateHeader  = "Tracestate"
)

// Version 00 exactly, lowercase hex; all-zero ids are refused separately.
var validTraceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// A tracestate list member: key=value (the spec's grammar, multi-tenant keys included).
var validTracestateMember = regexp.MustCompile(
	`^(?:[a-z0-9][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})=` +
		`[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)

// span is the gateway's hop of a request's trace.
type span struct {
	traceID  string // 32 lowercase hex digits
	spanID   string // this hop's, 16 lowercase hex digits
	parentID string // the caller's span; empty when the trace starts here
	flags    string // two hex digits, passed on as received ("00" for a fresh trace)
	state    string // the caller's validated tracestate, or empty
}

type spanKey struct{}

func withSpan(ctx context.Context, s *span) context.Context {
	return context.WithValue(ctx, spanKey{}, s)
}

func spanFrom(ctx context.Context) *span {
	s, _ := ctx.Value(spanKey{}).(*span)
	return s
}

// traceparent is the span as a traceparent header: sent to the server (its parent is this hop)
// and answered to the caller.
func (s *span) traceparent() string { return "00-" + s.traceID + "-" + s.spanID + "-" + s.flags }

// parseTraceparent returns the trace id, parent id and flags of a valid version-00 value.
func parseTraceparent(value string) (traceID, parentID, flags string, ok bool) {
	m := validTraceparent.FindStringSubmatch(value)
	if m == nil || strings.Trim(m[1], "0") == "" || strings.Trim(m[2], "0") == "" {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// validTracestate checks the whole header against the spec (at most 32 members, 512 bytes here):
// a vendor's opaque state is forwarded only when well formed.
func validTracestate(value string) bool {
	if value == "" || len(value) > 512 {
		return false
	}
	members := strings.Split(value, ",")
	if len(members) > 32 {
		return false
	}
	for _, member := range members {
		member = strings.Trim(member, " \t")
		if member != "" && !validTracestateMember.MatchString(member) {
			return false
		}
	}
	return true
}

// startSpan continues the caller's trace when its traceparent is valid (one header, version 00)
// and starts a fresh one otherwise; malformed values are dropped, never logged or forwarded.
func startSpan(r *http.Request) *span {
	s := &span{spanID: randomHex(8)}
	values := r.Header.Values(traceparentHeader)
	if len(values) == 1 {
		if traceID, parentID, flags, ok := parseTraceparent(values[0]); ok {
			s.traceID, s.parentID, s.flags = traceID, parentID, flags
			if states := r.Header.Values(tracestateHeader); len(states) > 0 {
				if state := strings.Join(states, ","); validTracestate(state) {
					s.state = state
				}
			}
			return s
		}
	}
	s.traceID, s.flags = randomHex(16), "00"
	return s
}

// forward replaces the request's trace headers with the gateway's hop, for the server.
func (s *span) forward(h http.Header) {
	h.Set(traceparentHeader, s.traceparent())
	h.Del(tracestateHeader)
	if s.state != "" {
		h.Set(tracestateHeader, s.state)
	}
}

// randomHex is n random bytes in lowercase hex, never all zeros (an invalid trace or span id).
func randomHex(n int) string {
	b := make([]byte, n)
	for {
		_, _ = rand.Read(b)
		for _, c := range b {
			if c != 0 {
				return hex.EncodeToString(b)
			}
		}
	}
}
