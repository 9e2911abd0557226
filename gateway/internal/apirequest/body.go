package apirequest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"hotel/gateway/internal/apierror"
)

// Decode reads a JSON body into its message: protojson, in one pass, refusing anything after the
// JSON value. Only a body it refuses is read again, to name the field (an apierror.FieldError) or
// to read its date-times in the forms clients send.
func Decode(raw []byte, msg proto.Message) error {
	if protojson.Unmarshal(raw, msg) == nil {
		return nil
	}
	return reread(raw, msg)
}

// reread is the decoding of a body protojson refused: its top-level date-times read as
// parseDateTime does (and the body decoded with them in RFC 3339), or the field named.
func reread(raw []byte, msg proto.Message) error {
	desc := msg.ProtoReflect().Descriptor()
	object, fe := bodyFields(raw, desc)
	if fe != nil {
		return fe
	}
	rewritten := false
	for key, value := range object {
		field := fieldByName(desc, key)
		var text string
		if field.Message() == nil || field.Message().FullName() != "google.protobuf.Timestamp" ||
			json.Unmarshal(value, &text) != nil || text == "" {
			continue
		}
		normal, ok := parseDateTime(text)
		if !ok {
			return badDateTime(string(field.Name()), text)
		}
		object[key], rewritten = strconv.AppendQuote(nil, normal), true
	}
	if rewritten {
		if again, err := json.Marshal(object); err == nil && protojson.Unmarshal(again, msg) == nil {
			return nil
		}
	}
	if fe := refusedField(desc, object); fe != nil {
		return fe
	}
	return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: "body", Description: "must be a " + string(desc.Name()) +
		" in JSON"}
}

// bodyFields are the members of a JSON object body by name, each naming a field of desc once;
// else what is wrong with the body.
func bodyFields(raw []byte, desc protoreflect.MessageDescriptor) (map[string]json.RawMessage, *apierror.FieldError) {
	bad := func(description string) *apierror.FieldError {
		return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: "body", Description: description}
	}
	if !json.Valid(raw) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		if dec.Decode(new(json.RawMessage)) == nil {
			return nil, bad("must be a single JSON value, with nothing after it")
		}
		return nil, bad("must be JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if open, _ := dec.Token(); open != json.Delim('{') {
		return nil, bad("must be a JSON object")
	}
	object, seen := map[string]json.RawMessage{}, map[protoreflect.FieldDescriptor]bool{}
	for dec.More() {
		token, _ := dec.Token()
		key, _ := token.(string)
		var value json.RawMessage
		_ = dec.Decode(&value) // valid JSON, as checked
		field := fieldByName(desc, key)
		switch {
		case field == nil:
			return nil, &apierror.FieldError{Reason: "UNKNOWN_FIELD", Field: key,
				Description: "is not a field of " + string(desc.Name())}
		case seen[field]:
			return nil, &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: string(field.Name()),
				Description: "is given twice"}
		}
		seen[field], object[key] = true, value
	}
	return object, nil
}

func fieldByName(desc protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	if field := desc.Fields().ByTextName(name); field != nil {
		return field
	}
	return desc.Fields().ByJSONName(name)
}

// refusedField is the first member (by name) protojson refuses on its own, named by a dotted
// path into the nested object that holds it; nil when each alone is read.
func refusedField(desc protoreflect.MessageDescriptor, object map[string]json.RawMessage) *apierror.FieldError {
	keys := make([]string, 0, len(object))
	for key := range object {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		field := fieldByName(desc, key)
		if field == nil {
			return &apierror.FieldError{Reason: "UNKNOWN_FIELD", Field: key, Description: "is not a field of " + string(desc.Name())}
		}
		alone, _ := json.Marshal(map[string]json.RawMessage{key: object[key]})
		if protojson.Unmarshal(alone, dynamicpb.NewMessage(desc)) == nil {
			continue
		}
		name := string(field.Name())
		var inner map[string]json.RawMessage
		if nested := field.Message(); nested != nil && !field.IsList() && !field.IsMap() &&
			nested.ParentFile().Package() == "hotel.v1" && json.Unmarshal(object[key], &inner) == nil {
			if fe := refusedField(nested, inner); fe != nil {
				fe.Field = name + "." + fe.Field
				return fe
			}
		}
		return &apierror.FieldError{Reason: "INVALID_ARGUMENT", Field: name, Description: "must be " + expected(field)}
	}
	return nil
}
