package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The API's JSON: proto field names, unset fields written out (null, [], {}, zero values).
var protoJSON = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// marshalJSON is protoJSON.Marshal(m), byte for byte, in a fraction of its CPU and allocations
// (performance.md, "Gateway CPU"): appendJSON. Where appendJSON fails (invalid UTF-8, a
// timestamp out of range) protojson runs instead, so errors are protojson's own too.
func marshalJSON(m proto.Message) ([]byte, error) {
	// Written into a reused buffer, then copied out at its size: one allocation per response.
	scratch := scratchBuffers.Get().(*[]byte)
	defer scratchBuffers.Put(scratch)
	written, err := appendJSON((*scratch)[:0], m.ProtoReflect())
	if cap(written) <= 64<<10 {
		*scratch = written // keeps the grown buffer, unless one huge response would pin it
	}
	if err != nil {
		return protoJSON.Marshal(m)
	}
	out := bytes.Clone(written)
	if marshalCheck.enabled {
		marshalCheck.compare(m, out)
	}
	return out, nil
}

var scratchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// appendJSON writes one message in one pass over its fields in declaration order (protojson
// collects them, sorts them and writes through closures and an encoder). Well-known types
// other than Timestamp (Struct, FieldMask, Any, ...) are rare in responses and left to protojson,
// so their mapping cannot drift.
func appendJSON(out []byte, m protoreflect.Message) ([]byte, error) {
	return appendFields(out, m, nil)
}

// appendFields is appendJSON for the fields only names (nil: all of them; read_mask.go).
func appendFields(out []byte, m protoreflect.Message, only fieldTree) ([]byte, error) {
	desc := m.Descriptor()
	if desc.FullName().Parent() == "google.protobuf" {
		if desc.Name() == "Timestamp" {
			return appendTimestamp(out, m)
		}
		if desc.Name() != "Empty" {
			return protoJSON.MarshalAppend(out, m.Interface())
		}
	}
	out = append(out, '{')
	fields := desc.Fields()
	first := true
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		var sub fieldTree
		if only != nil {
			var kept bool
			if sub, kept = only[string(fd.Name())]; !kept {
				continue
			}
		}
		has := m.Has(fd)
		if !has && fd.ContainingOneof() != nil {
			continue // protojson leaves out unset oneof members (proto3 optional included)
		}
		if !first {
			out = appendComma(out)
		}
		first = false
		out = appendString(out, fd.TextName())
		out = append(out, ':')
		var err error
		switch {
		case !has && fd.HasPresence():
			out = append(out, "null"...)
		case !has && fd.IsList():
			out = append(out, "[]"...)
		case !has && fd.IsMap():
			out = append(out, "{}"...)
		case fd.IsList():
			out, err = appendList(out, m.Get(fd).List(), fd, sub)
		case fd.IsMap():
			out, err = appendMap(out, m.Get(fd).Map(), fd)
		default:
			out, err = appendSingular(out, m.Get(fd), fd, sub)
		}
		if err != nil {
			return out, err
		}
	}
	return append(out, '}'), nil
}

func appendList(out []byte, list protoreflect.List, fd protoreflect.FieldDescriptor, only fieldTree) ([]byte, error) {
	out = append(out, '[')
	for i := 0; i < list.Len(); i++ {
		if i > 0 {
			out = appendComma(out)
		}
		var err error
		if out, err = appendSingular(out, list.Get(i), fd, only); err != nil {
			return out, err
		}
	}
	return append(out, ']'), nil
}

// appendMap writes entries in protojson's order: keys sorted as their type sorts (false before
// true, numbers by value, strings bytewise).
func appendMap(out []byte, mp protoreflect.Map, fd protoreflect.FieldDescriptor) ([]byte, error) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
		switch va := a.Interface().(type) {
		case bool:
			return compareBool(va, b.Bool())
		case int32, int64:
			return cmpInt(a.Int(), b.Int())
		case uint32, uint64:
			return cmpInt(a.Uint(), b.Uint())
		default:
			return cmpInt(a.String(), b.String())
		}
	})
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = appendComma(out)
		}
		out = appendString(out, k.String())
		out = append(out, ':')
		var err error
		if out, err = appendSingular(out, mp.Get(k), fd.MapValue(), nil); err != nil {
			return out, err
		}
	}
	return append(out, '}'), nil
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}

func cmpInt[T int64 | uint64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	default:
		return 0
	}
}

func appendSingular(out []byte, v protoreflect.Value, fd protoreflect.FieldDescriptor, only fieldTree) ([]byte, error) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(out, v.Bool()), nil
	case protoreflect.StringKind:
		s := v.String()
		if !utf8.ValidString(s) {
			return out, errors.New("invalid UTF-8") // marshalJSON lets protojson say so
		}
		return appendString(out, s), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(out, v.Int(), 10), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(out, v.Uint(), 10), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// 64-bit integers are JSON strings (JavaScript numbers lose precision above 2^53).
		out = append(out, '"')
		return append(strconv.AppendInt(out, v.Int(), 10), '"'), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		out = append(out, '"')
		return append(strconv.AppendUint(out, v.Uint(), 10), '"'), nil
	case protoreflect.FloatKind:
		return appendFloat(out, v.Float(), 32), nil
	case protoreflect.DoubleKind:
		return appendFloat(out, v.Float(), 64), nil
	case protoreflect.BytesKind:
		out = append(out, '"')
		return append(base64.StdEncoding.AppendEncode(out, v.Bytes()), '"'), nil
	case protoreflect.EnumKind:
		if fd.Enum().FullName() == "google.protobuf.NullValue" {
			return append(out, "null"...), nil
		}
		if value := fd.Enum().Values().ByNumber(v.Enum()); value != nil {
			return appendString(out, string(value.Name())), nil
		}
		return strconv.AppendInt(out, int64(v.Enum()), 10), nil
	default: // messages and groups
		return appendFields(out, v.Message(), only)
	}
}

// appendTimestamp is protojson's RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits.
func appendTimestamp(out []byte, m protoreflect.Message) ([]byte, error) {
	fields := m.Descriptor().Fields()
	secs, nanos := m.Get(fields.ByNumber(1)).Int(), m.Get(fields.ByNumber(2)).Int()
	if secs < -62135596800 || secs > 253402300799 || nanos < 0 || nanos > 1e9 {
		return out, errors.New("timestamp out of range") // marshalJSON lets protojson say so
	}
	out = append(out, '"')
	start := len(out)
	out = time.Unix(secs, nanos).UTC().AppendFormat(out, "2006-01-02T15:04:05.000000000")
	for _, zeros := range []string{"000", "000", ".000"} {
		if bytes.HasSuffix(out[start:], []byte(zeros)) {
			out = out[:len(out)-len(zeros)]
		}
	}
	return append(out, `Z"`...), nil
}

// appendFloat is protojson's number format (encoding/json's, with NaN and infinities as strings).
func appendFloat(out []byte, n float64, bitSize int) []byte {
	switch {
	case math.IsNaN(n):
		return append(out, `"NaN"`...)
	case math.IsInf(n, +1):
		return append(out, `"Infinity"`...)
	case math.IsInf(n, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(n); abs != 0 {
		if bitSize == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bitSize == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	out = strconv.AppendFloat(out, n, format, -1, bitSize)
	if format == 'e' {
		n := len(out)
		if n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
			out[n-2] = out[n-1]
			out = out[:n-1]
		}
	}
	return out
}

// appendString is protojson's string escaping: only ", \ and control characters; the caller
// has checked that s is UTF-8.
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		out = append(out, '\\')
		switch c {
		case '"', '\\':
			out = append(out, c)
		case '\b':
			out = append(out, 'b')
		case '\f':
			out = append(out, 'f')
		case '\n':
			out = append(out, 'n')
		case '\r':
			out = append(out, 'r')
		case '\t':
			out = append(out, 't')
		default:
			out = append(out, 'u')
			out = append(out, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			out = strconv.AppendUint(out, uint64(c), 16)
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// protojson follows every comma with a space or not, chosen once per binary from a hash of the
// executable (its internal detrand, there so nobody depends on its bytes). Matching it keeps
// every response identical to what protojson writes in this build.
var commaSpace = func() bool {
	probe, _ := protoJSON.Marshal(&status.Status{Message: "x"})
	return bytes.Contains(probe, []byte(", "))
}()

func appendComma(out []byte) []byte {
	if commaSpace {
		return append(out, ',', ' ')
	}
	return append(out, ',')
}

// apiMarshaler is grpc-gateway's JSONPb with marshalJSON for messages (responses); decoding
// requests and anything that is not a message stay JSONPb's.
type apiMarshaler struct{ *runtime.JSONPb }

func (a apiMarshaler) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case proto.Message:
		return marshalJSON(m)
	case maskedResponse:
		return m.marshalJSON()
	}
	return a.JSONPb.Marshal(v)
}

// marshalCheck (GATEWAY_MARSHAL_CHECK=1, for tests: it doubles the cost) also marshals every
// response with protojson and logs each difference; the e2e suite fails on any (conftest.py).
var marshalCheck = &marshalChecker{enabled: os.Getenv("GATEWAY_MARSHAL_CHECK") == "1"}

type marshalChecker struct {
	enabled              bool
	compared, mismatches atomic.Int64
}

func (c *marshalChecker) compare(m proto.Message, got []byte) {
	c.compared.Add(1)
	want, err := protoJSON.Marshal(m)
	if err == nil && bytes.Equal(got, want) {
		return
	}
	c.mismatches.Add(1)
	at := 0
	for at < len(got) && at < len(want) && got[at] == want[at] {
		at++
	}
	excerpt := func(b []byte) string { return string(b[max(at-40, 0):min(at+40, len(b))]) }
	slog.Error("marshal mismatch", "message", string(m.ProtoReflect().Descriptor().FullName()),
		"offset", at, "got", excerpt(got), "want", excerpt(want), "error", fmt.Sprint(err))
}
