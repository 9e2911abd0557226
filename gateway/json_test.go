package main

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// Awkward values protojson has rules for: escapes, control characters, non-ASCII, U+FFFD, line
// separators, HTML characters (not escaped), the float edge cases.
var (
	sampleStrings = []string{"", "101", "a \"quoted\" \\ path", "tab\tnew\nline\r\b\f", "\x00\x01\x1f\x7f",
		"Zimmer für zwei – ok", "\uFFFD", "\u2028\u2029", "<b>&amp;</b>", "😀 emoji"}
	sampleFloats = []float64{0, 1, -1.5, 0.1, 1e-7, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), 3.4028234663852886e38, 1e-6, 999999999999999999999.0}
	sampleInts = []int64{0, 1, -1, 42, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	// Timestamps with 0, 3, 6 and 9 fractional digits, the first and last protojson allows.
	sampleTimes = []*timestamppb.Timestamp{{}, {Seconds: 1764000000}, {Seconds: 1764000000, Nanos: 123000000},
		{Seconds: 1764000000, Nanos: 123456000}, {Seconds: 1764000000, Nanos: 123456789}, {Seconds: -62135596800},
		{Seconds: 253402300799, Nanos: 999999999}, {Seconds: -1, Nanos: 1000}}
)

// fill sets a random selection of m's fields to awkward values, nested messages, lists and maps
// included (some left unset: protojson writes those as null, [], {} or the zero value).
func fill(m protoreflect.Message, rng *rand.Rand, depth int) {
	if m.Descriptor().FullName() == "google.protobuf.Timestamp" {
		proto.Merge(m.Interface(), sampleTimes[rng.Intn(len(sampleTimes))])
		return
	}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if rng.Intn(4) == 0 || (depth > 3 && fd.Kind() == protoreflect.MessageKind) {
			continue
		}
		switch {
		case fd.IsList():
			list := m.Mutable(fd).List()
			for n := rng.Intn(4); n > 0; n-- {
				list.Append(sample(fd, list.NewElement, rng, depth))
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for n := rng.Intn(4); n > 0; n-- {
				mp.Set(sample(fd.MapKey(), nil, rng, depth).MapKey(), sample(fd.MapValue(), mp.NewValue, rng, depth))
			}
		default:
			m.Set(fd, sample(fd, func() protoreflect.Value { return m.NewField(fd) }, rng, depth))
		}
	}
}

func sample(fd protoreflect.FieldDescriptor, newMessage func() protoreflect.Value, rng *rand.Rand, depth int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(rng.Intn(2) == 1)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(sampleStrings[rng.Intn(len(sampleStrings))])
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte(sampleStrings[rng.Intn(len(sampleStrings))]))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(sampleInts[rng.Intn(len(sampleInts))]))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(sampleInts[rng.Intn(len(sampleInts))]))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(sampleInts[rng.Intn(len(sampleInts))])
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(sampleInts[rng.Intn(len(sampleInts))]))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(sampleFloats[rng.Intn(len(sampleFloats))]))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(sampleFloats[rng.Intn(len(sampleFloats))])
	case protoreflect.EnumKind:
		values := fd.Enum().Values()
		if rng.Intn(5) == 0 {
			return protoreflect.ValueOfEnum(77) // a number the enum does not name: written as a number
		}
		return protoreflect.ValueOfEnum(values.Get(rng.Intn(values.Len())).Number())
	default:
		v := newMessage()
		fill(v.Message(), rng, depth+1)
		return v
	}
}

func checkSame(t *testing.T, m proto.Message) {
	t.Helper()
	want, wantErr := protoJSON.Marshal(m)
	got, gotErr := marshalJSON(m)
	if string(got) != string(want) || (gotErr == nil) != (wantErr == nil) ||
		(gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%s:\n got %s (%v)\nwant %s (%v)", m.ProtoReflect().Descriptor().FullName(), got, gotErr, want, wantErr)
	}
}

// Every message of the API, empty and randomly filled many times, marshals to protojson's bytes.
func TestMarshalJSONMatchesProtojson(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	messages := 0
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		name := string(mt.Descriptor().FullName())
		if !strings.HasPrefix(name, "hotel.v1.") && !strings.HasPrefix(name, "google.rpc.") {
			return true
		}
		messages++
		checkSame(t, mt.New().Interface())
		for i := 0; i < 200; i++ {
			m := mt.New()
			fill(m, rng, 0)
			checkSame(t, m.Interface())
		}
		return true
	})
	if messages < 50 {
		t.Fatalf("only %d messages found", messages)
	}
}

// Errors (invalid UTF-8, a timestamp out of range) are protojson's own.
func TestMarshalJSONErrorsAreProtojsons(t *testing.T) {
	checkSame(t, &hotelv1.Room{Number: "bad \xff"})
	checkSame(t, &hotelv1.Equipment{CreatedAt: &timestamppb.Timestamp{Seconds: 1 << 40}})
	checkSame(t, &hotelv1.Equipment{CreatedAt: &timestamppb.Timestamp{Nanos: -1}})
	st, _ := status.New(codes.InvalidArgument, "x").WithDetails(&errdetails.ErrorInfo{Reason: "R", Metadata: map[string]string{"b": "1", "a": "2"}})
	checkSame(t, st.Proto()) // Any: left to protojson
}

// The responses of REST GetRoom and POST /issues as the harness's rows get them.
var benchResponses = map[string]proto.Message{"GetRoom": &hotelv1.Room{}, "CreateIssue": &hotelv1.Issue{}}

func BenchmarkMarshal(b *testing.B) {
	for name, m := range benchResponses {
		if err := protojson.Unmarshal([]byte(benchJSON[name]), m); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/protojson", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = protoJSON.Marshal(m)
			}
		})
		b.Run(name+"/marshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = marshalJSON(m)
			}
		})
	}
}

var benchJSON = map[string]string{
	"GetRoom":     `{"property_id":"BER1","number":"101","floor":1,"room_type_id":"BER1-STD","category":"STANDARD","amenities":["air_conditioning","desk","safe","wifi"],"available":true,"out_of_order":false,"out_of_order_reason":"","out_of_order_since":null,"images":[],"equipment_count":3,"etag":"ff404e1e09652234","retired":false,"retire_time":null,"updated_by":"","update_time":"2026-11-24T07:33:39.550547Z","extra_amenities":[]}`,
	"CreateIssue": `{"id":"1e072210-1ceb-4b43-88a5-9298b6ac6e18","property_id":"BER1","room_number":"101","equipment_id":"","title":"t","description":"","category":"HVAC","priority":"LOW","status":"OPEN","reason":"","reported_by":"me","assignee":"","take_room_out_of_order":false,"created_at":"2026-11-24T07:33:39.701572Z","updated_at":"2026-11-24T07:33:39.701572Z","resolved_at":null,"first_response_at":null,"resolve_by":"2026-12-01T07:33:39.701572Z","overdue":false,"etag":"58778b7dc3885af3","allowed_transitions":["IN_PROGRESS","ON_HOLD","RESOLVED","CANCELLED"],"timeline":[{"id":"47224bbf-4372-4d24-8a0f-fa820de15ac0","at":"2026-11-24T07:33:39.701572Z","actor":"me","type":"CREATED","from":"","to":"OPEN","note":"t","field":""}],"updated_by":"me","comment":""}`,
}
