package httpapi

import (
	"bytes"
	"cmp"
	"io"
	"net/http"
	"reflect"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apirequest"
)

// readJSONBody reads the (size-limited) body into memory, where the decoder finds it; one too
// slow is refused with its connection closed.
func readJSONBody(w http.ResponseWriter, r *http.Request) *status.Status {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, apierror.MaxBodyBytes))
	if err != nil {
		switch apierror.ReadFailure(err) {
		case http.StatusRequestEntityTooLarge:
			return apierror.TooLarge()
		case http.StatusRequestTimeout:
			w.Header().Set("Connection", "close")
			return apierror.Field(codes.DeadlineExceeded, "BODY_TIMEOUT", "the request body did not arrive in time", "body",
				"must arrive within the body timeout (docs/operations.md, \"Slow clients\")")
		}
		return status.New(codes.InvalidArgument, "reading the request body: "+err.Error())
	}
	if bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		// A JSON null body is no body: what OpenAPI Generator's Java client sends for an optional
		// body left out (POST /webhooks/{id}/ping). Required fields are then named as missing.
		body = []byte("{}")
	}
	r.Body = bodyReader{bytes.NewReader(body), body}
	return nil
}

// bodyReader is a request body held in memory with its bytes (readJSONBody's).
type bodyReader struct {
	*bytes.Reader
	raw []byte
}

func (bodyReader) Close() error { return nil }

// NewDecoder is the generated handlers' body decoder: apirequest.Decode, in one pass over the
// body readBody holds.
func (a apiMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		msg, ok := v.(proto.Message)
		if !ok {
			// A body field's message, by a pointer to its pointer (body: "issue", &protoReq.Issue).
			if msg, ok = newBodyField(v); !ok {
				return a.JSONPb.NewDecoder(r).Decode(v)
			}
		}
		raw, err := bodyBytes(r)
		if err != nil || len(bytes.TrimSpace(raw)) == 0 {
			return cmp.Or(err, io.EOF) // no body: the generated handler goes on without one
		}
		return apirequest.Decode(raw, msg)
	})
}

// newBodyField sets *v, a pointer to a message pointer, to a new message, which it returns.
func newBodyField(v any) (proto.Message, bool) {
	field := reflect.ValueOf(v)
	if field.Kind() != reflect.Pointer || field.Elem().Kind() != reflect.Pointer {
		return nil, false
	}
	msg, ok := reflect.New(field.Elem().Type().Elem()).Interface().(proto.Message)
	if ok {
		field.Elem().Set(reflect.ValueOf(msg))
	}
	return msg, ok
}

func bodyBytes(r io.Reader) ([]byte, error) {
	if body, ok := r.(bodyReader); ok {
		return body.raw, nil
	}
	return io.ReadAll(r)
}
