// Package apirequest reads requests into their messages on grpc-gateway's hooks: the query
// parser (runtime.SetQueryParameterParser) and the JSON body decoder; each refusal is an
// apierror.FieldError naming its field.
package apirequest

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/grpc-ecosystem/grpc-gateway/v2/utilities"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"hotel/gateway/internal/apierror"
)

// QueryParser is grpc-gateway's query parser (runtime.SetQueryParameterParser) for every
// generated handler and the change stream: grpc-gateway's DefaultQueryParser, one parameter at
// a time so that a refusal names its field, reading a date-time in the forms clients send
// (parseDateTime) and an enum value without its type's prefix (view=FULL for CHANGE_VIEW_FULL).
// Parameters an operation does not take are refused before (httpapi's knownQuery).
type QueryParser struct{ runtime.DefaultQueryParser }

func (p *QueryParser) Parse(msg proto.Message, values url.Values, filter *utilities.DoubleArray) error {
	seen := make(map[string]bool, len(values))
	for key, vs := range values {
		field, name := queryField(msg.ProtoReflect().Descriptor(), key)
		if field == nil || filter.HasCommonPrefix(strings.Split(name, ".")) {
			continue // a path parameter or body field named again: the path's and the body's count
		}
		if seen[name] {
			return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: name,
				Description: "is given twice (by its name and its JSON name)"}
		}
		seen[name] = true
		vs, fe := queryValues(field, name, vs)
		if fe != nil {
			return fe
		}
		if err := p.DefaultQueryParser.Parse(msg, url.Values{name: vs}, filter); err != nil {
			return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: name, Description: "must be " + expected(field)}
		}
	}
	return nil
}

// queryField is the field a query key names (its proto or JSON name, a dotted path through
// singular message fields as grpc-gateway reads it) and its proto path; nil when none.
func queryField(message protoreflect.MessageDescriptor, key string) (protoreflect.FieldDescriptor, string) {
	var path []string
	for part := range strings.SplitSeq(key, ".") {
		if message == nil {
			return nil, ""
		}
		field := message.Fields().ByTextName(part)
		if field == nil {
			field = message.Fields().ByJSONName(part)
		}
		if field == nil {
			return nil, ""
		}
		path = append(path, string(field.Name()))
		if len(path) == strings.Count(key, ".")+1 {
			return field, strings.Join(path, ".")
		}
		message = nil
		if field.Message() != nil && !field.IsList() && !field.IsMap() {
			message = field.Message()
		}
	}
	return nil, ""
}

// queryValues are the values as DefaultQueryParser reads them: date-times in RFC 3339, enum
// values by their full names.
func queryValues(field protoreflect.FieldDescriptor, name string, values []string) ([]string, *apierror.FieldError) {
	isTimestamp := field.Message() != nil && field.Message().FullName() == "google.protobuf.Timestamp"
	if !isTimestamp && field.Enum() == nil {
		return values, nil
	}
	out := slices.Clone(values)
	for i, v := range values {
		switch {
		case isTimestamp && v != "":
			normal, ok := parseDateTime(v)
			if !ok {
				return nil, badDateTime(name, v)
			}
			out[i] = normal
		case field.Enum() != nil:
			out[i] = fullEnumName(field.Enum(), v)
		}
	}
	return out, nil
}

// fullEnumName is the value's name with its type's prefix (the *_UNSPECIFIED value's, as
// CHANGE_VIEW_), when only that makes it one of the enum's; else the value as sent.
func fullEnumName(enum protoreflect.EnumDescriptor, value string) string {
	values := enum.Values()
	if values.ByName(protoreflect.Name(value)) != nil || values.Len() == 0 {
		return value
	}
	prefix, ok := strings.CutSuffix(string(values.Get(0).Name()), "UNSPECIFIED")
	if ok && values.ByName(protoreflect.Name(prefix+value)) != nil {
		return prefix + value
	}
	return value
}

// expected says what a field's value must be.
func expected(field protoreflect.FieldDescriptor) string {
	var what string
	switch field.Kind() {
	case protoreflect.EnumKind:
		var names []string
		for i := 1; i < field.Enum().Values().Len(); i++ {
			names = append(names, string(field.Enum().Values().Get(i).Name()))
		}
		what = "one of " + strings.Join(names, ", ")
	case protoreflect.BoolKind:
		what = "true or false"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		what = "a number"
	case protoreflect.StringKind:
		what = "text"
	case protoreflect.BytesKind:
		what = "base64 text"
	case protoreflect.MessageKind, protoreflect.GroupKind:
		what = map[protoreflect.FullName]string{
			"google.protobuf.Timestamp": dateTimeForm,
			"google.protobuf.FieldMask": "field paths separated by commas",
		}[field.Message().FullName()]
		what = cmp.Or(what, "a JSON object ("+string(field.Message().Name())+")")
	default:
		what = "an integer in range"
	}
	if field.IsList() {
		return "a list, each " + what
	}
	return what
}
