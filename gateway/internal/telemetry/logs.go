// Package telemetry is what the gateway tells its operators: the JSON log line both processes
// share, the request metrics, and OpenTelemetry tracing (docs/operations.md, "Observe").
package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/grpclog"
)

// The log line of both processes (docs/operations.md, "Logs"; the server writes it in
// server/src/common/log.cc): flat JSON with OpenTelemetry log data model names (timestamp,
// severity_text, severity_number, body, service.name), the request's trace_id, span_id and
// request_id when the line belongs to one (taken from the context: log with InfoContext & co.),
// then the attributes, numbers as numbers. slog's JSON handler writes it, with its keys renamed.

const serviceName = "hotel-gateway"

// NewLogHandler writes lines of the shared shape to w.
func NewLogHandler(w io.Writer, level slog.Leveler) slog.Handler {
	json := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: logShape})
	return contextHandler{json.WithAttrs([]slog.Attr{slog.String("service.name", serviceName)})}
}

// logShape renames slog's own keys to the shared shape's.
func logShape(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.String("timestamp", a.Value.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
	case slog.LevelKey:
		text, _ := severity(a.Value.Any().(slog.Level))
		return slog.String("severity_text", text)
	case slog.MessageKey:
		return slog.Attr{Key: "body", Value: a.Value}
	}
	return a
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

// contextHandler adds the severity number and what the context knows of the request.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	_, number := severity(r.Level)
	r.AddAttrs(slog.Int("severity_number", number))
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	if state := stateOf(ctx); state != nil && state.id != "" {
		r.AddAttrs(slog.String("request_id", state.id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// NewGRPCLogger writes gRPC's errors as log lines of the one shape; like gRPC's default logger
// (GRPC_GO_LOG_SEVERITY_LEVEL unset) it drops its info and warnings.
func NewGRPCLogger(logger *slog.Logger) grpclog.LoggerV2 {
	return grpcLogger{grpclog.NewLoggerV2(io.Discard, io.Discard, io.Discard), logger}
}

type grpcLogger struct {
	grpclog.LoggerV2 // info and warnings: dropped
	logger           *slog.Logger
}

func (g grpcLogger) Error(args ...any)         { g.logger.Error(fmt.Sprint(args...), "source", "grpc") }
func (g grpcLogger) Errorln(args ...any)       { g.Error(args...) }
func (g grpcLogger) Errorf(f string, a ...any) { g.Error(fmt.Sprintf(f, a...)) }
func (g grpcLogger) Fatal(args ...any)         { g.Error(args...); os.Exit(1) }
func (g grpcLogger) Fatalln(args ...any)       { g.Error(args...); os.Exit(1) }
func (g grpcLogger) Fatalf(f string, a ...any) { g.Errorf(f, a...); os.Exit(1) }
func (grpcLogger) V(int) bool                  { return false } // no verbose logs to format and drop
