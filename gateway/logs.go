package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
)

// The log line of both processes (docs/operations.md, "Logs"; the server writes it in
// server/src/common/log.cc): flat JSON with OpenTelemetry log data model names (timestamp,
// severity_text, severity_number, body, service.name), the request's trace_id, span_id and
// request_id when the line belongs to one (taken from the context: log with InfoContext & co.),
// then the attributes, numbers as numbers.

const serviceName = "hotel-gateway"

// logHandler puts the line's fixed part first and leaves the encoding to slog's JSON handler,
// whose own time, level and msg are dropped (ReplaceAttr).
type logHandler struct {
	json  slog.Handler
	attrs []slog.Attr      // from WithAttrs, written after the fixed part
	now   func() time.Time // the tests' clock; nil: the record's time
}

func newLogHandler(w io.Writer, level slog.Leveler) *logHandler {
	return &logHandler{
		json: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
				return slog.Attr{}
			}
			return a
		}}),
	}
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

func (h *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.json.Enabled(ctx, level)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	text, number := severity(r.Level)
	when := r.Time
	if h.now != nil {
		when = h.now()
	} else if when.IsZero() {
		when = time.Now()
	}
	out := slog.NewRecord(time.Time{}, r.Level, "", r.PC)
	out.AddAttrs(
		slog.String("timestamp", when.UTC().Format("2006-01-02T15:04:05.000Z")),
		slog.String("severity_text", text),
		slog.Int("severity_number", number),
		slog.String("body", r.Message),
		slog.String("service.name", serviceName),
	)
	if s := spanFrom(ctx); s != nil {
		out.AddAttrs(slog.String("trace_id", s.traceID), slog.String("span_id", s.spanID))
	}
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		out.AddAttrs(slog.String("request_id", id))
	}
	out.AddAttrs(h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	return h.json.Handle(ctx, out)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logHandler{json: h.json, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...), now: h.now}
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
