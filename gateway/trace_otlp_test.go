package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

// sdkClient is an otlptrace.Client: given to otlptrace.New, it makes the SDK's exporter without its
// HTTP, so what the SDK makes of a batch (its transform to the generated OTLP types, then
// proto.Marshal, as otlptracehttp does) is there to compare with.
type sdkClient struct {
	request *collectortrace.ExportTraceServiceRequest
	body    []byte
}

func (*sdkClient) Start(context.Context) error { return nil }
func (*sdkClient) Stop(context.Context) error  { return nil }
func (c *sdkClient) UploadTraces(_ context.Context, spans []*tracepb.ResourceSpans) (err error) {
	c.request = &collectortrace.ExportTraceServiceRequest{ResourceSpans: spans}
	c.body, err = proto.Marshal(c.request)
	return err
}

func newSDKExporter(tb testing.TB) (*otlptrace.Exporter, *sdkClient) {
	client := &sdkClient{}
	exporter, err := otlptrace.New(context.Background(), client)
	if err != nil {
		tb.Fatal(err)
	}
	return exporter, client
}

// The ids of a caller's trace, and of a span elsewhere that the test's spans link to.
var (
	callersTrace = trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	callersSpan  = trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	linkedTraces = [2]trace.TraceID{{1, 2, 3}, {4, 5, 6}}
	linkedSpan   = trace.SpanID{7, 8, 9}
	spansStart   = time.Unix(1_700_000_000, 123_456_789)
)

// recordedSpans are spans the SDK ended: a server span continuing a caller's remote trace (with
// tracestate, attributes of every type, events, links, an error status and something of each
// dropped), its client child, and a root span of another instrumentation scope.
func recordedSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	recorder := tracetest.NewSpanRecorder()
	limits := sdktrace.NewSpanLimits()
	limits.AttributeCountLimit, limits.EventCountLimit, limits.LinkCountLimit = 12, 2, 1
	limits.AttributePerEventCountLimit, limits.AttributePerLinkCountLimit = 1, 1
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithRawSpanLimits(limits),
		sdktrace.WithResource(resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
			attribute.String("service.name", "hotel-gateway"), attribute.Int("k8s.pod.index", 3))))
	tracer := provider.Tracer("hotel-gateway", trace.WithInstrumentationVersion("1.2.3"),
		trace.WithSchemaURL("https://opentelemetry.io/schemas/1.24.0"), trace.WithInstrumentationAttributes(attribute.Bool("scoped", true)))

	state, err := trace.ParseTraceState("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
	if err != nil {
		t.Fatal(err)
	}
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: callersTrace, SpanID: callersSpan, TraceFlags: trace.FlagsSampled, TraceState: state, Remote: true}))
	links := make([]trace.Link, 2)
	for i, id := range linkedTraces {
		links[i] = trace.Link{
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: id, SpanID: linkedSpan, Remote: i == 1}),
			Attributes:  []attribute.KeyValue{attribute.Int("hotel.change.seq", 41+i), attribute.String("dropped", "yes")},
		}
	}
	ctx, server := tracer.Start(ctx, "POST /api/v1/issues", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(spansStart), trace.WithLinks(links...))
	server.SetAttributes(
		attribute.String("string", "text"), attribute.String("empty string", ""), attribute.Bool("bool", false),
		attribute.Int64("int", -7), attribute.Float64("double", 2.5), attribute.ByteSlice("bytes", []byte{0, 1, 2}),
		attribute.StringSlice("strings", []string{"a", ""}), attribute.BoolSlice("bools", []bool{true, false}),
		attribute.Int64Slice("ints", []int64{1, -1}), attribute.Float64Slice("doubles", []float64{0.5}),
		attribute.Slice("mixed", attribute.StringValue("s"), attribute.Int64Value(3), attribute.Value{}),
		attribute.Map("map", attribute.String("inner", "v"), attribute.Int64Slice("none", nil)),
		attribute.String("over the limit", "dropped"))
	for i, name := range []string{"dropped", "retry", "answered"} {
		server.AddEvent(name, trace.WithTimestamp(spansStart.Add(time.Duration(i+1)*time.Millisecond)),
			trace.WithAttributes(attribute.Int("attempt", i), attribute.Bool("dropped", true)))
	}
	server.SetStatus(codes.Error, "the database is away")
	_, client := tracer.Start(ctx, "hotel.v1.IssueService/CreateIssue", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(spansStart.Add(time.Millisecond)))
	client.SetStatus(codes.Ok, "")
	client.End(trace.WithTimestamp(spansStart.Add(4 * time.Millisecond)))
	server.End(trace.WithTimestamp(spansStart.Add(5 * time.Millisecond)))
	_, other := provider.Tracer("other").Start(context.Background(), "background work")
	other.End()
	return recorder.Ended()
}

// exportTo exports spans with a fresh exporter configured by env (its endpoint the backend's,
// unless env names one) and answers the export's error.
func exportTo(t *testing.T, url string, env map[string]string, spans []sdktrace.ReadOnlySpan) error {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]; !ok {
		env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = url
	}
	settings, err := otlpSettingsFromEnv(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	exporter := newOTLPExporter(settings)
	defer func() { _ = exporter.Shutdown(context.Background()) }()
	return exporter.ExportSpans(context.Background(), spans)
}

func (b *traceBackend) lastRequest(t *testing.T) (*collectortrace.ExportTraceServiceRequest, http.Header) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) == 0 {
		t.Fatal("the backend accepted no request")
	}
	return b.requests[len(b.requests)-1], b.headers[len(b.headers)-1]
}

func stringValue(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func intValue(n int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
}

func boolValue(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}

func arrayValue(values ...*commonpb.AnyValue) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}}
}

func keyValues(pairs ...any) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, &commonpb.KeyValue{Key: pairs[i].(string), Value: pairs[i+1].(*commonpb.AnyValue)})
	}
	return out
}

// equal reports a difference between two messages in their text form.
func equal(t *testing.T, what string, got, want proto.Message) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, prototext.Format(got), prototext.Format(want))
	}
}

func TestOTLPExportCarriesEveryFieldOfTheSpans(t *testing.T) {
	spans := recordedSpans(t)
	backend := &traceBackend{status: http.StatusOK}
	if err := exportTo(t, backend.serve(t, nil), nil, spans); err != nil {
		t.Fatal(err)
	}
	request, _ := backend.lastRequest(t)

	// One resource, two scopes: the spans of each, in the order they ended.
	if len(request.ResourceSpans) != 1 || len(request.ResourceSpans[0].ScopeSpans) != 2 {
		t.Fatalf("grouping:\n%v", prototext.Format(request))
	}
	rs := request.ResourceSpans[0]
	if rs.SchemaUrl != "https://opentelemetry.io/schemas/1.26.0" {
		t.Errorf("resource schema URL %q", rs.SchemaUrl)
	}
	equal(t, "resource attributes", &commonpb.KeyValueList{Values: rs.Resource.Attributes}, &commonpb.KeyValueList{
		Values: keyValues("k8s.pod.index", intValue(3), "service.name", stringValue("hotel-gateway"))})
	gateway, other := rs.ScopeSpans[0], rs.ScopeSpans[1]
	equal(t, "scope", gateway.Scope, &commonpb.InstrumentationScope{Name: "hotel-gateway", Version: "1.2.3",
		Attributes: keyValues("scoped", boolValue(true))})
	equal(t, "other scope", other.Scope, &commonpb.InstrumentationScope{Name: "other"})
	if gateway.SchemaUrl != "https://opentelemetry.io/schemas/1.24.0" || other.SchemaUrl != "" {
		t.Errorf("scope schema URLs %q, %q", gateway.SchemaUrl, other.SchemaUrl)
	}
	if len(gateway.Spans) != 2 || len(other.Spans) != 1 {
		t.Fatalf("spans per scope: %d, %d", len(gateway.Spans), len(other.Spans))
	}
	client, server, background := gateway.Spans[0], gateway.Spans[1], other.Spans[0]
	serverID, clientID, backgroundID := spans[1].SpanContext().SpanID(), spans[0].SpanContext().SpanID(), spans[2].SpanContext().SpanID()

	const sampled, hasIsRemote, isRemote = 0x01, 0x100, 0x200
	nanos := func(d time.Duration) uint64 { return uint64(spansStart.Add(d).UnixNano()) }
	equal(t, "server span", server, &tracepb.Span{
		TraceId: callersTrace[:], SpanId: serverID[:], TraceState: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
		ParentSpanId: callersSpan[:], Flags: sampled | hasIsRemote | isRemote,
		Name: "POST /api/v1/issues", Kind: tracepb.Span_SPAN_KIND_SERVER,
		StartTimeUnixNano: nanos(0), EndTimeUnixNano: nanos(5 * time.Millisecond),
		Attributes: keyValues(
			"string", stringValue("text"), "empty string", stringValue(""), "bool", boolValue(false),
			"int", intValue(-7), "double", &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 2.5}},
			"bytes", &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{0, 1, 2}}},
			"strings", arrayValue(stringValue("a"), stringValue("")), "bools", arrayValue(boolValue(true), boolValue(false)),
			"ints", arrayValue(intValue(1), intValue(-1)),
			"doubles", arrayValue(&commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 0.5}}),
			"mixed", arrayValue(stringValue("s"), intValue(3), &commonpb.AnyValue{}),
			"map", &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{
				Values: keyValues("inner", stringValue("v"), "none", arrayValue())}}}),
		DroppedAttributesCount: 1,
		Events: []*tracepb.Span_Event{
			{TimeUnixNano: nanos(2 * time.Millisecond), Name: "retry", Attributes: keyValues("attempt", intValue(1)), DroppedAttributesCount: 1},
			{TimeUnixNano: nanos(3 * time.Millisecond), Name: "answered", Attributes: keyValues("attempt", intValue(2)), DroppedAttributesCount: 1},
		},
		DroppedEventsCount: 1,
		Links: []*tracepb.Span_Link{{TraceId: linkedTraces[1][:], SpanId: linkedSpan[:],
			Attributes: keyValues("hotel.change.seq", intValue(42)), DroppedAttributesCount: 1, Flags: hasIsRemote | isRemote}},
		DroppedLinksCount: 1,
		Status:            &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "the database is away"},
	})
	equal(t, "client span", client, &tracepb.Span{
		TraceId: callersTrace[:], SpanId: clientID[:], TraceState: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
		ParentSpanId: serverID[:], Flags: sampled | hasIsRemote,
		Name: "hotel.v1.IssueService/CreateIssue", Kind: tracepb.Span_SPAN_KIND_CLIENT,
		StartTimeUnixNano: nanos(time.Millisecond), EndTimeUnixNano: nanos(4 * time.Millisecond),
		Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
	})
	backgroundTrace := spans[2].SpanContext().TraceID()
	equal(t, "a root span", background, &tracepb.Span{
		TraceId: backgroundTrace[:], SpanId: backgroundID[:], Flags: sampled | hasIsRemote, Name: "background work",
		Kind: tracepb.Span_SPAN_KIND_INTERNAL, StartTimeUnixNano: uint64(spans[2].StartTime().UnixNano()),
		EndTimeUnixNano: uint64(spans[2].EndTime().UnixNano()), Status: &tracepb.Status{},
	})

	// And all of it as the SDK's exporter has it.
	sdk, made := newSDKExporter(t)
	if err := sdk.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	equal(t, "the SDK's request", request, made.request)
}

// Lengths of every size: a nested message's length takes 1 to 4 bytes, which the encoder guesses
// before it knows; it must not matter whether it guessed right.
func TestOTLPEncodingOfMessagesOfEverySize(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	limits := sdktrace.NewSpanLimits()
	limits.AttributeValueLengthLimit = -1
	provider := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithRawSpanLimits(limits),
		sdktrace.WithResource(resource.Empty()))
	for _, size := range []int{0, 100, 127, 128, 200, 16 << 10, 20 << 10, 3 << 20} {
		_, span := provider.Tracer("").Start(context.Background(), strings.Repeat("n", size%1000))
		span.SetAttributes(attribute.String("value", strings.Repeat("v", size)))
		span.AddEvent("event", trace.WithAttributes(attribute.String("value", strings.Repeat("e", size))))
		span.End()
	}
	spans := recorder.Ended()
	var encoder otlpEncoder
	var got collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(encoder.encode(spans), &got); err != nil {
		t.Fatal(err)
	}
	sdk, made := newSDKExporter(t)
	if err := sdk.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, made.request) {
		t.Error("the request differs from the SDK's")
	}
	// The empty resource and the empty scope: as the SDK writes them.
	if rs := got.ResourceSpans; len(rs) != 1 || rs[0].Resource == nil || len(rs[0].Resource.Attributes) != 0 ||
		len(rs[0].ScopeSpans) != 1 || rs[0].ScopeSpans[0].Scope == nil || rs[0].ScopeSpans[0].Scope.Name == "" {
		t.Errorf("resource and scope of %d resources", len(rs))
	}
}

// Spans of two resources, and spans without a resource or a scope (the SDK gives every span both,
// but the exporter takes any ReadOnlySpan): grouped and written as the SDK's exporter does.
func TestOTLPEncodingOfSpansOfSeveralResourcesAndScopes(t *testing.T) {
	pods := []*resource.Resource{resource.NewSchemaless(attribute.String("pod", "a")), resource.NewSchemaless(attribute.String("pod", "b"))}
	var stubs tracetest.SpanStubs
	for i, r := range []*resource.Resource{pods[0], nil, pods[1], pods[0], nil, pods[1]} {
		stub := tracetest.SpanStub{Name: fmt.Sprint("span ", i), Resource: r, StartTime: spansStart, EndTime: spansStart}
		if i%3 != 1 {
			stub.InstrumentationScope.Name = fmt.Sprint("scope ", i%2)
		}
		stubs = append(stubs, stub)
	}
	spans := stubs.Snapshots()
	var encoder otlpEncoder
	var got collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(encoder.encode(spans), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.ResourceSpans) != 3 {
		t.Fatalf("%d resources", len(got.ResourceSpans))
	}
	sdk, made := newSDKExporter(t)
	if err := sdk.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	// The SDK's resources come in a map's order; the scopes of each in the order they first appear.
	for _, rs := range got.ResourceSpans {
		found := false
		for _, want := range made.request.ResourceSpans {
			if proto.Equal(rs.Resource, want.Resource) {
				equal(t, "resource "+prototext.Format(rs.Resource), rs, want)
				found = true
			}
		}
		if !found {
			t.Errorf("resource %v: not in the SDK's request", rs.Resource)
		}
	}
}

func TestOTLPSettingsFromTheStandardVariables(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env     map[string]string
		url     string // the traces URL; empty: an error naming wrong
		wrong   string
		headers http.Header
		timeout time.Duration
		gzip    bool
	}{
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, url: "http://collector:4318/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": " HTTPS://collector:4318/ "}, url: "https://collector:4318/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://gw.example/otlp?x=1"}, url: "https://gw.example/otlp/v1/traces"},
		// The signal's own URL is used as it is, and wins.
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9/in"},
			url: "http://traces:9/in"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9"}, url: "http://traces:9/"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, wrong: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "10.0.0.1:4318"}, wrong: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://traces/"},
			wrong: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wrong: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		// Headers: W3C Baggage's form, values percent-decoded; the signal's variable replaces the other.
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b%3D, x-team = ops ,"},
			url: "http://c:1/v1/traces", headers: http.Header{"Api-Key": {"a b="}, "X-Team": {"ops"}}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2"},
			url: "http://c:1/v1/traces", headers: http.Header{"B": {"2"}}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_HEADERS": "api-key"}, wrong: "OTEL_EXPORTER_OTLP_HEADERS"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a b=1"}, wrong: "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_HEADERS": "a=1%0Ab"}, wrong: "OTEL_EXPORTER_OTLP_HEADERS"},
		// Timeout in ms, 10 s unless set; 0: none of its own.
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "250"},
			url: "http://c:1/v1/traces", timeout: 250 * time.Millisecond},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "250", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "0"},
			url: "http://c:1/v1/traces", timeout: 0},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "1s"}, wrong: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"},
			url: "http://c:1/v1/traces", gzip: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none"},
			url: "http://c:1/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, wrong: "OTEL_EXPORTER_OTLP_COMPRESSION"},
		// INSECURE only where it agrees with the scheme, which decides.
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_INSECURE": "true"}, url: "http://c:1/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:1", "OTEL_EXPORTER_OTLP_INSECURE": "true"}, wrong: "OTEL_EXPORTER_OTLP_INSECURE"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:1", "OTEL_EXPORTER_OTLP_TRACES_INSECURE": "false"}, wrong: "OTEL_EXPORTER_OTLP_TRACES_INSECURE"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:1", "OTEL_EXPORTER_OTLP_CERTIFICATE": caFile}, wrong: "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:1", "OTEL_EXPORTER_OTLP_CLIENT_KEY": caFile}, wrong: "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
	} {
		got, err := otlpSettingsFromEnv(envOf(tc.env))
		if tc.url == "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wrong) {
				t.Errorf("%v: error %v, want one naming %s", tc.env, err, tc.wrong)
			}
			continue
		}
		if tc.timeout == 0 && tc.env["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"] == "" {
			tc.timeout = 10 * time.Second
		}
		if err != nil || got.url != tc.url || got.timeout != tc.timeout || got.gzip != tc.gzip ||
			len(got.headers) != len(tc.headers) || got.tls != nil {
			t.Errorf("%v: %+v, %v", tc.env, got, err)
		}
		for name := range tc.headers {
			if got.headers.Get(name) != tc.headers.Get(name) {
				t.Errorf("%v: header %s %q, want %q", tc.env, name, got.headers.Get(name), tc.headers.Get(name))
			}
		}
	}
}

func TestOTLPExportSendsItsHeadersAndCompresses(t *testing.T) {
	spans := recordedSpans(t)
	backend := &traceBackend{status: http.StatusOK}
	err := exportTo(t, backend.serve(t, nil), map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%C3%A9same", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}, spans)
	if err != nil {
		t.Fatal(err)
	}
	request, headers := backend.lastRequest(t)
	if headers.Get("Content-Type") != "application/x-protobuf" || headers.Get("Content-Encoding") != "gzip" ||
		headers.Get("Api-Key") != "sésame" || !strings.HasPrefix(headers.Get("User-Agent"), "hotel-gateway/") {
		t.Errorf("headers %v", headers)
	}
	sdk, made := newSDKExporter(t)
	if err := sdk.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	equal(t, "the gzipped request", request, made.request)
}

func TestOTLPExportFailsWhenTheBackendRefusesIsAwayOrTooSlow(t *testing.T) {
	spans := recordedSpans(t)
	backend := &traceBackend{status: http.StatusInternalServerError, arrived: make(chan struct{}, 1)}
	url := backend.serve(t, nil)
	settings, err := otlpSettingsFromEnv(envOf(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": url, "OTEL_EXPORTER_OTLP_TIMEOUT": "200"}))
	if err != nil {
		t.Fatal(err)
	}
	exporter := newOTLPExporter(settings)
	defer func() { _ = exporter.Shutdown(context.Background()) }()
	ctx := context.Background()
	if err := exporter.ExportSpans(ctx, spans); err == nil || !strings.Contains(err.Error(), "500") ||
		!strings.Contains(err.Error(), "the backend says no") {
		t.Errorf("a 500: %v", err)
	}
	// The answers were read and the connection is reused: the next batches go on it.
	backend.set(http.StatusOK, nil)
	for range 2 {
		if err := exporter.ExportSpans(ctx, spans); err != nil {
			t.Fatal(err)
		}
	}
	if got := backend.conns.Load(); got != 1 {
		t.Errorf("%d connections for three exports", got)
	}

	// Too slow: the export gives up after OTEL_EXPORTER_OTLP_TIMEOUT.
	hold := make(chan struct{})
	defer close(hold)
	backend.set(http.StatusOK, hold)
	start := time.Now()
	if err := exporter.ExportSpans(ctx, spans); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a backend that never answers: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("gave up after %v", waited)
	}
	// Or after the caller's deadline, when that comes first.
	shortCtx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := exporter.ExportSpans(shortCtx, spans); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the caller's deadline: %v", err)
	}

	// An empty batch sends nothing; a backend that is away is an error.
	if err := exporter.ExportSpans(ctx, nil); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
	if err := exportTo(t, closedURL(t), nil, spans); err == nil {
		t.Error("an unreachable backend: no error")
	}
}

// closedURL is a traces URL on loopback where nothing listens any more.
func closedURL(t *testing.T) string {
	t.Helper()
	listener, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + listener.Addr().String() + "/v1/traces"
	_ = listener.Close()
	return url
}

func TestOTLPExporterShutdownEndsAnExportInFlight(t *testing.T) {
	spans := recordedSpans(t)
	hold := make(chan struct{})
	defer close(hold)
	backend := &traceBackend{status: http.StatusOK, hold: hold, arrived: make(chan struct{}, 1)}
	exporter := newOTLPExporter(otlpSettings{url: backend.serve(t, nil)})
	exported := make(chan error, 1)
	go func() { exported <- exporter.ExportSpans(context.Background(), spans) }()
	<-backend.arrived
	if err := exporter.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exported:
		if err == nil {
			t.Error("the export in flight succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown left the export in flight waiting")
	}
	if err := exporter.ExportSpans(context.Background(), spans); !errors.Is(err, errOTLPExporterShutDown) {
		t.Errorf("an export after Shutdown: %v", err)
	}
}

// selfSigned is a certificate and key for name, in PEM files in dir.
func selfSigned(t *testing.T, dir, name string, usage x509.ExtKeyUsage) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	for file, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cert, err = x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// A backend with a certificate of a private CA that asks for the client's: CERTIFICATE,
// CLIENT_CERTIFICATE and CLIENT_KEY.
func TestOTLPExportOverTLSWithTheGivenCertificates(t *testing.T) {
	dir := t.TempDir()
	serverCert, serverKey, _ := selfSigned(t, dir, "backend", x509.ExtKeyUsageServerAuth)
	clientCert, clientKey, client := selfSigned(t, dir, "gateway", x509.ExtKeyUsageClientAuth)
	pair, err := tls.LoadX509KeyPair(serverCert, serverKey)
	if err != nil {
		t.Fatal(err)
	}
	clients := x509.NewCertPool()
	clients.AddCert(client)
	backend := &traceBackend{status: http.StatusOK}
	url := backend.serve(t, &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients})
	spans := recordedSpans(t)

	env := map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": serverCert, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": clientCert,
		"OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY": clientKey}
	if err := exportTo(t, url, env, spans); err != nil {
		t.Fatal(err)
	}
	if err := exportTo(t, url, map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": serverCert}, spans); err == nil {
		t.Error("exported without the client certificate")
	}
	if err := exportTo(t, url, nil, spans); err == nil {
		t.Error("trusted the backend without its CA")
	}
	env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = strings.Replace(url, "https:", "http:", 1)
	if _, err := otlpSettingsFromEnv(envOf(env)); err == nil {
		t.Error("certificates for an http:// endpoint")
	}
}

// gatewaySpans are n spans as the gateway makes them (serverSpans.end, clientSpans): half requests
// with their HTTP attributes, half gRPC calls with their RPC attributes.
func gatewaySpans(b *testing.B, n int) []sdktrace.ReadOnlySpan {
	recorder := tracetest.NewSpanRecorder()
	res, err := resource.New(context.Background(), resource.WithAttributes(attribute.String("service.name", serviceName)),
		resource.WithTelemetrySDK())
	if err != nil {
		b.Fatal(err)
	}
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder), sdktrace.WithResource(res)).Tracer(instrumentationName)
	for range n / 2 {
		ctx, server := tracer.Start(context.Background(), "POST", serverSpanOptions...)
		_, client := tracer.Start(ctx, "hotel.v1.IssueService/CreateIssue", trace.WithSpanKind(trace.SpanKindClient))
		client.SetAttributes(keyRPCSystem.String("grpc"), keyRPCService.String("hotel.v1.IssueService"),
			keyRPCMethod.String("CreateIssue"), keyRPCStatusCode.Int(0))
		client.End()
		server.SetName("POST /api/v1/issues")
		server.SetAttributes(keyMethod.String("POST"), keyURLPath.String("/api/v1/issues"), keyURLScheme.String("http"),
			keyProtocolVersion.String("1.1"), keyStatusCode.Int(201), keyRoute.String("/api/v1/issues"),
			keyClientAddress.String("10.1.2.3"), keyUserAgent.String("python-urllib3/2.0.7"))
		server.End()
	}
	return recorder.Ended()
}

// The encoding of a full batch: this exporter's against the SDK's (its transform to the generated
// OTLP types and proto.Marshal, what otlptracehttp does before its POST). Nothing is asserted:
//
//	go test -run '^$' -bench BenchmarkExportEncoding -benchmem
func BenchmarkExportEncoding512Spans(b *testing.B) {
	spans := gatewaySpans(b, 512)
	ctx := context.Background()
	b.Run("ours", func(b *testing.B) {
		var encoder otlpEncoder
		b.ReportAllocs()
		var size int
		for b.Loop() {
			size = len(encoder.encode(spans))
		}
		b.ReportMetric(float64(size), "request-bytes")
	})
	b.Run("sdk", func(b *testing.B) {
		exporter, made := newSDKExporter(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := exporter.ExportSpans(ctx, spans); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(made.body)), "request-bytes")
	})
}
