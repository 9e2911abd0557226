package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"
)

// The log line of both processes (docs/operations.md, "Logs"; the server writes it in
// server/src/common/log.cc): flat JSON with OpenTelemetry log data model names (timestamp,
// severity_text, severity_number, body, service.name), the request's trace_id, span_id and
// request_id when the line belongs to one (taken from the context: log with InfoContext & co.),
// then the attributes, numbers as numbers.

const serviceName = "hotel-gateway"

// logHandler writes the line itself into a reused buffer, one Write per line: slog's JSON handler
// (used before) cost the gateway ~5 % of its CPU per request line, rebuilding a record and
// encoding floats through encoding/json. Values are written as slog's JSON handler writes them
// (logs_test.go compares the two), except that a group's attributes are written inline: the line
// is flat.
type logHandler struct {
	out   *lockedWriter
	level slog.Leveler
	attrs []slog.Attr      // from WithAttrs, written after the fixed part
	now   func() time.Time // the tests' clock; nil: the record's time
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func newLogHandler(w io.Writer, level slog.Leveler) *logHandler {
	return &logHandler{out: &lockedWriter{w: w}, level: level}
}

// severity maps slog's levels to OpenTelemetry's SeverityText and SeverityNumber.
func severity(level slog.Level) (string, int) {
	switch {
	case level < slog.LevelInfo:
		return "DEBUG", 5
	case level < slog.LevelWarn:
		return "INFO", 9
	case level < slog.LevelError:
		return "WARN", 13
	default:
		return "ERROR", 17
	}
}

func (h *logHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

var logBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	text, number := severity(r.Level)
	when := r.Time
	if h.now != nil {
		when = h.now()
	} else if when.IsZero() {
		when = time.Now()
	}
	buf := logBuffers.Get().(*[]byte)
	defer logBuffers.Put(buf)
	b := append((*buf)[:0], `{"timestamp":"`...)
	b = when.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","severity_text":"`...)
	b = append(b, text...)
	b = append(b, `","severity_number":`...)
	b = strconv.AppendInt(b, int64(number), 10)
	b = appendLogAttr(b, slog.String("body", r.Message))
	b = appendLogAttr(b, slog.String("service.name", serviceName))
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		b = appendLogAttr(appendLogAttr(b, slog.String("trace_id", sc.TraceID().String())),
			slog.String("span_id", sc.SpanID().String()))
	}
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		b = appendLogAttr(b, slog.String("request_id", id))
	}
	for _, a := range h.attrs {
		b = appendLogAttr(b, a)
	}
	r.Attrs(func(a slog.Attr) bool {
		b = appendLogAttr(b, a)
		return true
	})
	b = append(b, '}', '\n')
	if cap(b) <= 64<<10 {
		*buf = b // keeps the grown buffer, unless one huge line would pin it
	}
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := h.out.w.Write(b)
	return err
}

// appendLogAttr writes ,"key":value as slog's JSON handler does; empty attributes are left out.
func appendLogAttr(b []byte, a slog.Attr) []byte {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, member := range a.Value.Group() {
			b = appendLogAttr(b, member)
		}
		return b
	}
	b = append(b, ',')
	b = appendLogString(b, a.Key)
	b = append(b, ':')
	v := a.Value
	switch v.Kind() {
	case slog.KindString:
		return appendLogString(b, v.String())
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10)
	case slog.KindFloat64:
		if f := v.Float64(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return appendFloat(b, f, 64) // encoding/json's format, as slog's
		}
	case slog.KindTime:
		if y := v.Time().Year(); y >= 0 && y < 10000 {
			b = append(b, '"')
			return append(v.Time().AppendFormat(b, time.RFC3339Nano), '"')
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			if _, marshals := err.(json.Marshaler); !marshals {
				return appendLogString(b, err.Error())
			}
		}
	}
	// The rest (other values, NaN, years beyond 9999) as slog writes them: encoding/json without
	// HTML escaping, or the error in place of the value.
	var data bytes.Buffer
	encoder := json.NewEncoder(&data)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v.Any()); err != nil {
		return appendLogString(b, "!ERROR:"+err.Error())
	}
	return append(b, bytes.TrimSuffix(data.Bytes(), []byte("\n"))...)
}

// appendLogString is slog's JSON string: ", \ and control characters escaped, invalid UTF-8 as
// U+FFFD, and U+2028 and U+2029 escaped.
func appendLogString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			if r, size = utf8.DecodeRuneInString(s[i:]); !(r == utf8.RuneError && size == 1) && r != '\u2028' && r != '\u2029' {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch {
		case r == utf8.RuneError:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, "0123456789abcdef"[r&0xF])
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xF])
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{out: h.out, level: h.level, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...), now: h.now}
}

// WithGroup is not used by the gateway: groups would nest, and the line is flat.
func (h *logHandler) WithGroup(string) slog.Handler { return h }

type requestIDKey struct{}

// grpcLogger writes gRPC's errors as log lines of the one shape; like gRPC's default logger
// (GRPC_GO_LOG_SEVERITY_LEVEL unset) it drops its info and warnings.
type grpcLogger struct{ logger *slog.Logger }

func (grpcLogger) Info(...any)             {}
func (grpcLogger) Infoln(...any)           {}
func (grpcLogger) Infof(string, ...any)    {}
func (grpcLogger) Warning(...any)          {}
func (grpcLogger) Warningln(...any)        {}
func (grpcLogger) Warningf(string, ...any) {}
func (g grpcLogger) Error(args ...any)     { g.logger.Error(fmt.Sprint(args...), "source", "grpc") }
func (g grpcLogger) Errorln(args ...any)   { g.logger.Error(fmt.Sprint(args...), "source", "grpc") }
func (g grpcLogger) Errorf(f string, a ...any) {
	g.logger.Error(fmt.Sprintf(f, a...), "source", "grpc")
}
func (g grpcLogger) Fatal(args ...any)         { g.Error(args...); os.Exit(1) }
func (g grpcLogger) Fatalln(args ...any)       { g.Error(args...); os.Exit(1) }
func (g grpcLogger) Fatalf(f string, a ...any) { g.Errorf(f, a...); os.Exit(1) }
func (grpcLogger) V(int) bool                  { return false }
