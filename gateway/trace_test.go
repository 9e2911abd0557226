package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseTraceparentIsStrict(t *testing.T) {
	if id, parent, flags, ok := parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"); !ok ||
		id != "4bf92f3577b34da6a3ce929d0e0e4736" || parent != "00f067aa0ba902b7" || flags != "01" {
		t.Fatalf("valid traceparent refused: %v %v %v %v", id, parent, flags, ok)
	}
	for _, bad := range []string{
		"",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",   // upper case
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // another version
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",   // the invalid version
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",   // zero trace id
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",   // zero parent id
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",  // trailing text
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",   // not hex
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n", // a newline
		" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	} {
		if _, _, _, ok := parseTraceparent(bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestStartSpanContinuesAValidTrace(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	r.Header.Set("Tracestate", "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7")
	s := startSpan(r)
	if s.traceID != "4bf92f3577b34da6a3ce929d0e0e4736" || s.parentID != "00f067aa0ba902b7" || s.spanID == s.parentID {
		t.Fatalf("span %+v", s)
	}
	s.forward(r.Header)
	if got := r.Header.Get("Traceparent"); got != "00-4bf92f3577b34da6a3ce929d0e0e4736-"+s.spanID+"-01" {
		t.Fatalf("forwarded %q", got)
	}
	if got := r.Header.Get("Tracestate"); got != "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7" {
		t.Fatalf("tracestate %q", got)
	}
}

func TestStartSpanReplacesAMalformedTrace(t *testing.T) {
	for _, headers := range []map[string][]string{
		{},
		{"Traceparent": {"00-<script>-00f067aa0ba902b7-01"}, "Tracestate": {"congo=t61rcWkgMzE"}},
		{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01"}},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		for k, v := range headers {
			r.Header[k] = v
		}
		s := startSpan(r)
		s.forward(r.Header)
		if _, _, flags, ok := parseTraceparent(r.Header.Get("Traceparent")); !ok || flags != "00" || s.parentID != "" {
			t.Errorf("%v: forwarded %q", headers, r.Header.Get("Traceparent"))
		}
		if strings.Contains(r.Header.Get("Traceparent"), "4bf92f3577b34da6a3ce929d0e0e4736") || r.Header.Get("Tracestate") != "" {
			t.Errorf("%v: kept the caller's trace: %v", headers, r.Header)
		}
	}
}

func TestTracestateValidation(t *testing.T) {
	for value, want := range map[string]bool{
		"congo=t61rcWkgMzE":                 true,
		"rojo=00f067aa0ba902b7,congo=t61rc": true,
		"tenant@vendor=x":                   true,
		"Congo=x":                           false,
		"congo=":                            false,
		"congo=a,b":                         false,
		"congo=x\x00":                       false,
		strings.Repeat("a=b,", 33) + "a=b":  false,
	} {
		if got := validTracestate(value); got != want {
			t.Errorf("validTracestate(%q) = %v", value, got)
		}
	}
}
