package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// Tracing with the OpenTelemetry Go SDK (docs/operations.md, "Tracing"): W3C Trace Context in and
// out (the SDK's propagator), a server span per request (otelhttp, named by the route) and a
// client span per gRPC call to the server (otelgrpc, which sends the server its traceparent),
// exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set. Without an endpoint
// nothing is exported and a trace that starts here is not sampled, but ids are still made and
// passed on, so logs, the Traceparent response header and the change log carry them as before.

const (
	traceparentHeader = "Traceparent"
	tracestateHeader  = "Tracestate"
)

// propagator is the W3C traceparent/tracestate propagator, for requests and gRPC calls alike.
var propagator = propagation.TraceContext{}

// exportEndpoint is the OTLP endpoint the standard variables name, empty when tracing is off.
func exportEndpoint(getenv func(string) string) string {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || getenv("OTEL_TRACES_EXPORTER") == "none" {
		return ""
	}
	if url := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); url != "" {
		return url
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// setupTracing installs the tracer provider and propagator; the returned function flushes what
// is queued for export (at shutdown). The SDK reads the rest of the OTEL_* variables itself:
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG] (unset: as the
// server, parentbased_traceidratio with the ratio of _ARG, 1 by default), OTEL_BSP_* (its batch processor's queue drops when full; it never blocks
// a request) and OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout).
func setupTracing(ctx context.Context, getenv func(string) string) (func(context.Context) error, error) {
	otel.SetTextMapPropagator(propagator)
	if exportEndpoint(getenv) == "" {
		// Caller's sampled flag kept and passed on; fresh traces unsampled: nothing recorded.
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample()))))
		return func(context.Context) error { return nil }, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if protocol := getenv(name); protocol != "" {
			if protocol != "http/protobuf" {
				return nil, fmt.Errorf("%s: only http/protobuf is supported, got %q", name, protocol)
			}
			break
		}
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	// The default service name first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", serviceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	options := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)}
	if getenv("OTEL_TRACES_SAMPLER") == "" {
		// The server's default, parentbased_traceidratio (the SDK's would be parentbased_always_on,
		// which ignores OTEL_TRACES_SAMPLER_ARG).
		ratio := 1.0
		if arg := getenv("OTEL_TRACES_SAMPLER_ARG"); arg != "" {
			if parsed, err := strconv.ParseFloat(arg, 64); err == nil && parsed >= 0 && parsed <= 1 {
				ratio = parsed
			} else {
				return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got %q", arg)
			}
		}
		options = append(options, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))))
	}
	provider := sdktrace.NewTracerProvider(options...)
	otel.SetTracerProvider(provider)
	return provider.Shutdown, nil
}

// grpcClientTracing is the dial option that gives every call to the server a client span and
// sends its traceparent as gRPC metadata.
func grpcClientTracing() grpc.DialOption {
	return grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithPropagators(propagator)))
}

// Version 00 exactly, lowercase hex; what the SDK's propagator checks besides (all-zero ids,
// version ff) it checks itself.
var validTraceparent = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// dropUnknownTraceparent removes a traceparent the SDK would accept but this gateway does not:
// one of a later version (the SDK parses its first fields, as W3C allows) or more than one header
// (the SDK reads the first). Either starts a fresh trace here, as a malformed value does.
func dropUnknownTraceparent(h http.Header) {
	if values := h.Values(traceparentHeader); len(values) > 1 || (len(values) == 1 && !validTraceparent.MatchString(values[0])) {
		h.Del(traceparentHeader)
		h.Del(tracestateHeader)
	}
}

// traced gives a request its server span (otelhttp: HTTP semantic conventions; the caller's trace
// continued when its traceparent is valid) named "<method> <route>", and next the route's name in
// the context (routeKey), which routeRecorder replaces with grpc-gateway's matched pattern.
func traced(label string, next http.Handler) http.Handler {
	handler := otelhttp.NewHandler(next, label, otelhttp.WithPropagators(propagator),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			// Called again once the request is served: the route is known by then.
			if route, ok := r.Context().Value(routeKey{}).(*string); ok {
				return methodLabel(r.Method) + " " + *route
			}
			return methodLabel(r.Method)
		}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dropUnknownTraceparent(r.Header)
		route := label
		r = r.WithContext(context.WithValue(r.Context(), routeKey{}, &route))
		handler.ServeHTTP(w, r)
	})
}

// nameSpan names the request's span after its route, once grpc-gateway has matched it.
func nameSpan(ctx context.Context, method, route string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetName(method + " " + route)
		span.SetAttributes(attribute.String("http.route", route))
	}
}

// traceparent is the request's span as a traceparent header value, answered to the caller.
func traceparent(sc trace.SpanContext) string {
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}
