package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/net/http/httpguts"
	"google.golang.org/protobuf/encoding/protowire"
)

// The gateway's OTLP/HTTP span exporter (docs/decisions.md, "Exported traces"). The SDK's exporter
// (otlptracehttp) turns every batch into a tree of generated OTLP structs, a few allocations per
// span and per attribute, and then marshals that tree: ~4.5 % of the gateway's CPU at full
// sampling, and much of its garbage. This one writes the ExportTraceServiceRequest's wire format
// straight from the SDK's ReadOnlySpans into a buffer it keeps, and POSTs it.

// otlpVariable is the first set of OTEL_EXPORTER_OTLP_TRACES_<name> and OTEL_EXPORTER_OTLP_<name>
// (the signal's own variable wins, as in the SDK), and its value without surrounding spaces.
func otlpVariable(getenv func(string) string, name string) (variable, value string) {
	for _, variable := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name} {
		if value := strings.TrimSpace(getenv(variable)); value != "" {
			return variable, value
		}
	}
	return "", ""
}

// otlpSettings are the exporter's, from OpenTelemetry's OTEL_EXPORTER_OTLP_[TRACES_]* variables.
type otlpSettings struct {
	url     string        // where batches are POSTed
	headers http.Header   // HEADERS: sent with each export
	timeout time.Duration // TIMEOUT (ms): longest export; 0: none of its own
	gzip    bool          // COMPRESSION=gzip
	tls     *tls.Config   // CERTIFICATE, CLIENT_CERTIFICATE and CLIENT_KEY; nil: the system's roots
}

// otlpSettingsFromEnv reads what the SDK's OTLP/HTTP exporter (v1.47.0) reads, the same way where
// the gateway supports it; where the SDK would log a value it cannot use and carry on (a malformed
// URL, header or timeout), or where the gateway does not do what a value asks, the gateway stops at
// start with the variable's name.
func otlpSettingsFromEnv(getenv func(string) string) (otlpSettings, error) {
	s := otlpSettings{timeout: 10 * time.Second}
	if variable, protocol := otlpVariable(getenv, "PROTOCOL"); protocol != "" && protocol != "http/protobuf" {
		return s, fmt.Errorf("%s: only http/protobuf is supported, got %q", variable, protocol)
	}
	variable, endpoint := otlpVariable(getenv, "ENDPOINT")
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		// The SDK would send "collector:4318" to https:///v1/traces: no host.
		return s, fmt.Errorf("%s: expected an http:// or https:// URL, got %q", variable, endpoint)
	}
	scheme, urlPath := strings.ToLower(u.Scheme), u.Path
	if variable == "OTEL_EXPORTER_OTLP_ENDPOINT" {
		urlPath = path.Join(urlPath, "/v1/traces") // a base URL: the signal's path goes under it
	} else if urlPath == "" {
		urlPath = "/" // the signal's URL is used as it is, with the root path when it has none
	}
	// Scheme, host and path only, as the SDK sends them.
	s.url = (&url.URL{Scheme: scheme, Host: u.Host, Path: urlPath}).String()
	// For OTLP/HTTP the URL's scheme says whether TLS is used; the SDK lets INSECURE override it.
	if variable, insecure := otlpVariable(getenv, "INSECURE"); insecure != "" && strings.EqualFold(insecure, "true") != (scheme == "http") {
		return s, fmt.Errorf("%s=%s contradicts the endpoint's scheme (%s://): the scheme decides", variable, insecure, scheme)
	}
	if variable, text := otlpVariable(getenv, "HEADERS"); text != "" {
		if s.headers, err = otlpHeaders(variable, text); err != nil {
			return s, err
		}
	}
	if variable, text := otlpVariable(getenv, "TIMEOUT"); text != "" {
		ms, err := strconv.Atoi(text)
		if err != nil || ms < 0 {
			return s, fmt.Errorf("%s: expected milliseconds, got %q", variable, text)
		}
		s.timeout = time.Duration(ms) * time.Millisecond
	}
	if variable, compression := otlpVariable(getenv, "COMPRESSION"); compression != "" {
		if compression != "gzip" && compression != "none" {
			return s, fmt.Errorf("%s: expected gzip or none, got %q", variable, compression)
		}
		s.gzip = compression == "gzip"
	}
	if s.tls, err = otlpTLS(getenv); err != nil {
		return s, err
	}
	if s.tls != nil && scheme == "http" {
		return s, fmt.Errorf("%s: certificates are set for an http:// endpoint", variable)
	}
	return s, nil
}

// otlpHeaders parses "key1=value1,key2=value2" (W3C Baggage's form, percent-encoded values).
func otlpHeaders(variable, text string) (http.Header, error) {
	headers := http.Header{}
	for _, member := range strings.Split(text, ",") {
		if strings.TrimSpace(member) == "" {
			continue
		}
		key, value, found := strings.Cut(member, "=")
		key = strings.TrimSpace(key)
		decoded, err := url.PathUnescape(value)
		decoded = strings.TrimSpace(decoded)
		if !found || err != nil || !httpguts.ValidHeaderFieldName(key) || !httpguts.ValidHeaderFieldValue(decoded) {
			return nil, fmt.Errorf("%s: expected header=value pairs separated by commas, got %q", variable, member)
		}
		headers.Set(key, decoded)
	}
	return headers, nil
}

// otlpTLS is the TLS configuration the certificate variables ask for, nil when none is set.
func otlpTLS(getenv func(string) string) (*tls.Config, error) {
	caVariable, caFile := otlpVariable(getenv, "CERTIFICATE")
	certVariable, certFile := otlpVariable(getenv, "CLIENT_CERTIFICATE")
	keyVariable, keyFile := otlpVariable(getenv, "CLIENT_KEY")
	if caFile == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caVariable, err)
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate in %s", caVariable, caFile)
		}
	}
	if certFile == "" || keyFile == "" {
		if certFile != "" || keyFile != "" {
			return nil, fmt.Errorf("%s and %s: a client certificate needs both",
				cmp.Or(certVariable, "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"), cmp.Or(keyVariable, "OTEL_EXPORTER_OTLP_CLIENT_KEY"))
		}
		return config, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("%s, %s: %w", certVariable, keyVariable, err)
	}
	config.Certificates = []tls.Certificate{cert}
	return config, nil
}

var errOTLPExporterShutDown = errors.New("trace exporter is shut down")

// otlpExporter is the sdktrace.SpanExporter exportQueue sends batches to: one export at a time
// (exportQueue's goroutine), so the encoder, the compressor and their buffers are reused.
// No retries: a batch the backend refuses is exportQueue's to count.
type otlpExporter struct {
	url     string
	header  http.Header // the settings' headers, Content-Type, User-Agent, Content-Encoding
	timeout time.Duration
	client  *http.Client

	encoder otlpEncoder
	zipper  *gzip.Writer // nil: no compression
	zipped  bytes.Buffer
	body    *requestBody // the previous export's, which the transport may not be done with

	stopped context.Context // cancelled by Shutdown, and with it an export in flight
	stop    context.CancelFunc
}

func newOTLPExporter(s otlpSettings) *otlpExporter {
	// A copy of net/http's default transport (proxy from the environment, HTTP/2, keep-alive):
	// connections to the backend are reused from one export to the next.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = s.tls
	header := s.headers.Clone()
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/x-protobuf")
	header.Set("User-Agent", "hotel-gateway/"+version)
	e := &otlpExporter{url: s.url, header: header, timeout: s.timeout, client: &http.Client{Transport: transport}}
	if s.gzip {
		header.Set("Content-Encoding", "gzip")
		e.zipper = gzip.NewWriter(io.Discard)
	}
	e.stopped, e.stop = context.WithCancel(context.Background())
	return e
}

// ExportSpans POSTs one batch. An error means the backend did not take it: a transport error, an
// answer other than 2xx, ctx's end, the settings' timeout or Shutdown.
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	if e.stopped.Err() != nil {
		return errOTLPExporterShutDown
	}
	var cancel context.CancelFunc
	if e.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	defer context.AfterFunc(e.stopped, cancel)()

	// net/http closes a request's body once it has sent it, but possibly after Do returned (an
	// answer that came before the whole body went): the buffers are not written until then.
	if e.body != nil {
		select {
		case <-e.body.closed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	payload := e.encoder.encode(spans)
	if e.zipper != nil {
		e.zipped.Reset()
		e.zipper.Reset(&e.zipped)
		_, _ = e.zipper.Write(payload) // a bytes.Buffer takes everything
		_ = e.zipper.Close()
		payload = e.zipped.Bytes()
	}
	e.body = &requestBody{closed: make(chan struct{})}
	e.body.Reset(payload)
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, e.body)
	if err != nil {
		_ = e.body.Close()
		return err
	}
	request.ContentLength = int64(len(payload)) // not known to net/http for a body of our own type
	request.Header = e.header.Clone()
	response, err := e.client.Do(request)
	if err != nil {
		return err
	}
	// The body read to its end (a bounded amount) and closed: the connection is reused.
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(response.Body, 64<<10))
		_ = response.Body.Close()
	}()
	if response.StatusCode >= 200 && response.StatusCode <= 299 {
		// A partial success's rejected spans are not told apart: the batch counts as exported.
		return nil
	}
	message, _ := io.ReadAll(io.LimitReader(response.Body, 512))
	return fmt.Errorf("%s answered %s: %q", e.url, response.Status, bytes.TrimSpace(message))
}

// Shutdown ends an export in flight; later exports fail. There is nothing to flush: an export
// holds no spans once it returned.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.stop()
	e.client.CloseIdleConnections()
	return nil
}

// requestBody reads the reused buffer as a request's body and tells when net/http is done with it.
type requestBody struct {
	bytes.Reader
	closed chan struct{}
	once   sync.Once
}

func (b *requestBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// Field numbers of the OTLP messages written (opentelemetry-proto v1.11.0). Each message's fields
// are written in the order of their numbers, as the protobuf library writes them.
const (
	requestResourceSpans = 1 // ExportTraceServiceRequest

	resourceSpansResource, resourceSpansScopeSpans, resourceSpansSchemaURL = 1, 2, 3
	resourceAttributes                                                     = 1
	scopeSpansScope, scopeSpansSpans, scopeSpansSchemaURL                  = 1, 2, 3
	scopeName, scopeVersion, scopeAttributes                               = 1, 2, 3

	spanTraceID, spanSpanID, spanTraceState, spanParentSpanID, spanName, spanKind = 1, 2, 3, 4, 5, 6
	spanStartTime, spanEndTime, spanAttributes, spanDroppedAttributes             = 7, 8, 9, 10
	spanEvents, spanDroppedEvents, spanLinks, spanDroppedLinks, spanStatus        = 11, 12, 13, 14, 15
	spanFlags                                                                     = 16

	eventTime, eventName, eventAttributes, eventDroppedAttributes              = 1, 2, 3, 4
	linkTraceID, linkSpanID, linkAttributes, linkDroppedAttributes, linkFlags  = 1, 2, 4, 5, 6
	statusMessage, statusCode                                                  = 2, 3
	keyValueKey, keyValueValue                                                 = 1, 2
	anyString, anyBool, anyInt, anyDouble, anyArray, anyKeyValueList, anyBytes = 1, 2, 3, 4, 5, 6, 7
	arrayValues, keyValueListValues                                            = 1, 1

	// SpanFlags: the W3C trace flags in the low byte, and whether the parent is remote.
	flagsContextHasIsRemote, flagsContextIsRemote = 0x100, 0x200
)

// otlpEncoder writes one ExportTraceServiceRequest at a time into a buffer it keeps.
type otlpEncoder struct {
	b      []byte
	groups []spanGroup // the batch's resource and scope pairs, in the order they first appear
	group  []int       // per span of the batch, its index in groups (-1: a nil span)
}

type spanGroup struct {
	resource *resource.Resource
	scope    instrumentation.Scope
}

// encode answers the request for spans, grouped as the SDK groups them: a ResourceSpans per
// resource, in it a ScopeSpans per instrumentation scope, spans in batch order within each. The
// answer is valid until the next call.
func (e *otlpEncoder) encode(spans []sdktrace.ReadOnlySpan) []byte {
	e.b, e.groups, e.group = e.b[:0], e.groups[:0], e.group[:0]
	for _, span := range spans {
		g := -1
		if span != nil {
			g = e.groupOf(span.Resource(), span.InstrumentationScope())
		}
		e.group = append(e.group, g)
	}
	for g, first := range e.groups {
		if e.resourceIndex(first.resource) < g {
			continue // its ResourceSpans is written
		}
		rs := e.open(requestResourceSpans, 3)
		if first.resource != nil {
			m := e.open(resourceSpansResource, 2)
			iter := first.resource.Iter()
			for iter.Next() {
				e.keyValue(resourceAttributes, iter.Attribute())
			}
			e.close(m)
		}
		for h := g; h < len(e.groups); h++ {
			if sameResource(e.groups[h].resource, first.resource) {
				e.scopeSpans(h, spans)
			}
		}
		e.string(resourceSpansSchemaURL, first.resource.SchemaURL())
		e.close(rs)
	}
	return e.b
}

// sameResource is the SDK's test, resources with equal attributes, after a quicker one.
func sameResource(a, b *resource.Resource) bool {
	return a == b || a.Equivalent() == b.Equivalent()
}

func (e *otlpEncoder) groupOf(r *resource.Resource, scope instrumentation.Scope) int {
	for g, group := range e.groups {
		if group.scope == scope && sameResource(group.resource, r) {
			return g
		}
	}
	e.groups = append(e.groups, spanGroup{r, scope})
	return len(e.groups) - 1
}

func (e *otlpEncoder) resourceIndex(r *resource.Resource) int {
	for g, group := range e.groups {
		if sameResource(group.resource, r) {
			return g
		}
	}
	return -1
}

func (e *otlpEncoder) scopeSpans(g int, spans []sdktrace.ReadOnlySpan) {
	ss := e.open(resourceSpansScopeSpans, 3)
	scope := e.groups[g].scope
	if scope != (instrumentation.Scope{}) { // the SDK leaves the zero scope out
		m := e.open(scopeSpansScope, 1)
		e.string(scopeName, scope.Name)
		e.string(scopeVersion, scope.Version)
		iter := scope.Attributes.Iter()
		for iter.Next() {
			e.keyValue(scopeAttributes, iter.Attribute())
		}
		e.close(m)
	}
	for i, span := range spans {
		if e.group[i] == g {
			e.span(span)
		}
	}
	e.string(scopeSpansSchemaURL, scope.SchemaURL)
	e.close(ss)
}

func (e *otlpEncoder) span(span sdktrace.ReadOnlySpan) {
	m := e.open(scopeSpansSpans, 2)
	sc, parent := span.SpanContext(), span.Parent()
	traceID, spanID := sc.TraceID(), sc.SpanID()
	e.bytes(spanTraceID, traceID[:])
	e.bytes(spanSpanID, spanID[:])
	e.traceState(spanTraceState, sc.TraceState())
	if parentID := parent.SpanID(); parentID.IsValid() {
		e.bytes(spanParentSpanID, parentID[:])
	}
	e.string(spanName, span.Name())
	if kind := span.SpanKind(); kind >= trace.SpanKindInternal && kind <= trace.SpanKindConsumer {
		e.varint(spanKind, uint64(kind)) // OTLP's SpanKind numbers them alike
	}
	e.fixed64(spanStartTime, unixNano(span.StartTime()))
	e.fixed64(spanEndTime, unixNano(span.EndTime()))
	for _, kv := range span.Attributes() {
		e.keyValue(spanAttributes, kv)
	}
	e.varint(spanDroppedAttributes, droppedCount(span.DroppedAttributes()))
	for _, event := range span.Events() {
		em := e.open(spanEvents, 1)
		e.fixed64(eventTime, unixNano(event.Time))
		e.string(eventName, event.Name)
		for _, kv := range event.Attributes {
			e.keyValue(eventAttributes, kv)
		}
		e.varint(eventDroppedAttributes, droppedCount(event.DroppedAttributeCount))
		e.close(em)
	}
	e.varint(spanDroppedEvents, droppedCount(span.DroppedEvents()))
	for _, link := range span.Links() {
		// The SDK's transform leaves a link's trace_state out; so does this.
		lm := e.open(spanLinks, 1)
		traceID, spanID := link.SpanContext.TraceID(), link.SpanContext.SpanID()
		e.bytes(linkTraceID, traceID[:])
		e.bytes(linkSpanID, spanID[:])
		for _, kv := range link.Attributes {
			e.keyValue(linkAttributes, kv)
		}
		e.varint(linkDroppedAttributes, droppedCount(link.DroppedAttributeCount))
		e.fixed32(linkFlags, spanFlagsOf(link.SpanContext.TraceFlags(), link.SpanContext))
		e.close(lm)
	}
	e.varint(spanDroppedLinks, droppedCount(span.DroppedLinks()))
	// Always written, as the SDK does, even when unset.
	status := span.Status()
	sm := e.open(spanStatus, 1)
	e.string(statusMessage, status.Description)
	switch status.Code { // numbered differently in OTLP
	case codes.Ok:
		e.varint(statusCode, 1)
	case codes.Error:
		e.varint(statusCode, 2)
	}
	e.close(sm)
	e.fixed32(spanFlags, spanFlagsOf(sc.TraceFlags(), parent))
	e.close(m)
}

// spanFlagsOf is the SDK's: the trace flags, and that whether parent is remote is known and its answer.
func spanFlagsOf(flags trace.TraceFlags, parent trace.SpanContext) uint32 {
	out := uint32(flags) | flagsContextHasIsRemote
	if parent.IsRemote() {
		out |= flagsContextIsRemote
	}
	return out
}

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

// droppedCount is a count of the SDK as OTLP's uint32, clamped as the SDK clamps it.
func droppedCount(n int) uint64 { return uint64(min(max(n, 0), math.MaxUint32)) }

// traceState writes the W3C form, "key=value,key=value", without building it as a string first.
func (e *otlpEncoder) traceState(num protowire.Number, ts trace.TraceState) {
	if ts.Len() == 0 {
		return
	}
	m := e.open(num, 1)
	ts.Walk(func(key, value string) bool {
		if len(e.b) > m.start {
			e.b = append(e.b, ',')
		}
		e.b = append(append(append(e.b, key...), '='), value...)
		return true
	})
	e.close(m)
}

func (e *otlpEncoder) keyValue(num protowire.Number, kv attribute.KeyValue) {
	m := e.open(num, 1)
	e.string(keyValueKey, string(kv.Key))
	e.anyValue(keyValueValue, kv.Value)
	e.close(m)
}

// anyValue writes v as an AnyValue, as the SDK's transform does: a slice becomes an ArrayValue of
// AnyValues, a map a KeyValueList, an empty value an empty message.
func (e *otlpEncoder) anyValue(num protowire.Number, v attribute.Value) {
	m := e.open(num, 1)
	switch v.Type() {
	case attribute.BOOL:
		e.b = protowire.AppendTag(e.b, anyBool, protowire.VarintType)
		e.b = protowire.AppendVarint(e.b, protowire.EncodeBool(v.AsBool()))
	case attribute.INT64:
		e.b = protowire.AppendTag(e.b, anyInt, protowire.VarintType)
		e.b = protowire.AppendVarint(e.b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		e.b = protowire.AppendTag(e.b, anyDouble, protowire.Fixed64Type)
		e.b = protowire.AppendFixed64(e.b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		e.b = protowire.AppendTag(e.b, anyString, protowire.BytesType)
		e.b = protowire.AppendString(e.b, v.AsString())
	case attribute.BYTESLICE:
		e.b = protowire.AppendTag(e.b, anyBytes, protowire.BytesType)
		e.b = protowire.AppendBytes(e.b, v.AsByteSlice())
	case attribute.BOOLSLICE:
		arrayOf(e, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		arrayOf(e, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		arrayOf(e, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		arrayOf(e, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		arrayOf(e, v.AsSlice(), func(x attribute.Value) attribute.Value { return x })
	case attribute.MAP:
		l := e.open(anyKeyValueList, 1)
		for _, kv := range v.AsMap() {
			e.keyValue(keyValueListValues, kv)
		}
		e.close(l)
	case attribute.EMPTY:
	default: // a type newer than this code, as the SDK writes it
		e.b = protowire.AppendTag(e.b, anyString, protowire.BytesType)
		e.b = protowire.AppendString(e.b, "INVALID")
	}
	e.close(m)
}

// arrayOf writes values as an ArrayValue, each an AnyValue of the type value makes.
func arrayOf[T any](e *otlpEncoder, values []T, value func(T) attribute.Value) {
	a := e.open(anyArray, 1)
	for _, x := range values {
		e.anyValue(arrayValues, value(x))
	}
	e.close(a)
}

// Scalar fields; a zero value is not written (proto3).

func (e *otlpEncoder) string(num protowire.Number, s string) {
	if s != "" {
		e.b = protowire.AppendString(protowire.AppendTag(e.b, num, protowire.BytesType), s)
	}
}

func (e *otlpEncoder) bytes(num protowire.Number, b []byte) {
	if len(b) != 0 {
		e.b = protowire.AppendBytes(protowire.AppendTag(e.b, num, protowire.BytesType), b)
	}
}

func (e *otlpEncoder) varint(num protowire.Number, v uint64) {
	if v != 0 {
		e.b = protowire.AppendVarint(protowire.AppendTag(e.b, num, protowire.VarintType), v)
	}
}

func (e *otlpEncoder) fixed64(num protowire.Number, v uint64) {
	if v != 0 {
		e.b = protowire.AppendFixed64(protowire.AppendTag(e.b, num, protowire.Fixed64Type), v)
	}
}

func (e *otlpEncoder) fixed32(num protowire.Number, v uint32) {
	if v != 0 {
		e.b = protowire.AppendFixed32(protowire.AppendTag(e.b, num, protowire.Fixed32Type), v)
	}
}

// openField is a nested message being written: where its content starts, and how many bytes are
// set aside before that for its length.
type openField struct{ start, reserved int }

var lengthSlot [binary.MaxVarintLen64]byte

// open starts a length-delimited field whose length is known only when it is closed. reserve is
// a guess at the length's size (1 byte up to 127, 2 up to 16 KiB, 3 up to 2 MiB): a right one
// spares close moving the content, a wrong one costs that move.
func (e *otlpEncoder) open(num protowire.Number, reserve int) openField {
	e.b = append(protowire.AppendTag(e.b, num, protowire.BytesType), lengthSlot[:reserve]...)
	return openField{len(e.b), reserve}
}

func (e *otlpEncoder) close(f openField) {
	n := len(e.b) - f.start
	size := protowire.SizeVarint(uint64(n))
	if size != f.reserved { // the content moves to just after the length's actual size
		at := f.start - f.reserved + size
		if size > f.reserved {
			e.b = append(e.b, lengthSlot[:size-f.reserved]...)
		}
		copy(e.b[at:], e.b[f.start:f.start+n])
		e.b = e.b[:at+n]
	}
	binary.PutUvarint(e.b[f.start-f.reserved:], uint64(n)) // protobuf's varint is this one
}
