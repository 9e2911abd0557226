// Package apierror writes every error answer, the gateway's refusals and the server's errors: a
// google.rpc.Status with an ErrorInfo (and a BadRequest naming the field where there is one) in
// the API's JSON, under the HTTP status its code maps to; and the headers every answer shares.
package apierror

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"hotel/gateway/internal/apijson"
)

// Domain is the ErrorInfo domain of every error the API answers.
const Domain = "hotel.v1"

// MaxBodyBytes is the largest JSON request body the API accepts (413 above it).
const MaxBodyBytes = 1 << 20

// FieldError is the refusal of one field of a request where it is parsed: by the query parser
// and the body decoder (httpapi), which know the field. grpc-gateway's generated handlers pass a
// parse error on as its text alone (status.Errorf(codes.InvalidArgument, "%v", err)), so that
// text has one form of our own, reason, quoted field and description, which WithDetails reads back.
type FieldError struct {
	Reason      string // UNKNOWN_FIELD or INVALID_ARGUMENT
	Field       string // its proto name, a dotted path for a nested field
	Description string // what the field must be
}

func (e *FieldError) Error() string {
	return fieldErrorMark + e.Reason + " " + strconv.Quote(e.Field) + " " + e.Description
}

// fieldErrorMark begins every FieldError's text, which no library's error begins with.
const fieldErrorMark = "hotel field error: "

// fieldErrorOf is the FieldError whose text message is, if it is one.
func fieldErrorOf(message string) (*FieldError, bool) {
	rest, ok := strings.CutPrefix(message, fieldErrorMark)
	if !ok {
		return nil, false
	}
	reason, rest, _ := strings.Cut(rest, " ")
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return nil, false
	}
	field, _ := strconv.Unquote(quoted)
	return &FieldError{reason, field, strings.TrimPrefix(rest[len(quoted):], " ")}, true
}

// Status is e as the API answers it: its BadRequest names the field.
func (e *FieldError) Status() *status.Status {
	return Field(codes.InvalidArgument, e.Reason, e.Field+": "+e.Description, e.Field, e.Description)
}

// WithDetails adds ErrorInfo (and BadRequest where a field can be named) to a status that
// came without details, i.e. one the gateway produced rather than the server.
func WithDetails(st *status.Status) *status.Status {
	if len(st.Details()) > 0 {
		return st
	}
	if st.Code() == codes.Unavailable {
		// The server never answers UNAVAILABLE without details, so this is the connection to it
		// failing; its text names internal addresses, which clients must not see.
		st = status.New(codes.Unavailable, "the service is temporarily unavailable; retry with backoff")
	}
	if fe, ok := fieldErrorOf(st.Message()); ok && st.Code() == codes.InvalidArgument {
		return fe.Status()
	}
	return New(st.Code(), code.Code_name[int32(st.Code())], st.Message())
}

// reasonStatuses are the refusals whose HTTP status is not their code's: conflicts, a change cursor
// older than the retention (410: list again, as Kubernetes clients do on a 410 watch), and the
// gateway's refusals of a request's size, headers, media type or pace, which HTTP has codes for.
var reasonStatuses = map[string]int{
	"INVALID_TRANSITION":     http.StatusConflict,
	"ROOM_BLOCK_OVERLAP":     http.StatusConflict,
	"CURSOR_EXPIRED":         http.StatusGone,
	"PAYLOAD_TOO_LARGE":      http.StatusRequestEntityTooLarge,
	"HEADER_TOO_LARGE":       http.StatusRequestHeaderFieldsTooLarge,
	"UNSUPPORTED_MEDIA_TYPE": http.StatusUnsupportedMediaType,
	"BODY_TIMEOUT":           http.StatusRequestTimeout,
}

// httpStatus is grpc-gateway's mapping, but for reasonStatuses and lost races on an etag (409).
func httpStatus(st *status.Status) int {
	if st.Code() == codes.Aborted {
		return http.StatusConflict
	}
	if code, ok := reasonStatuses[reason(st)]; ok {
		return code
	}
	return runtime.HTTPStatusFromCode(st.Code())
}

// reason is the reason of st's ErrorInfo, "" without one.
func reason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.Reason
		}
	}
	return ""
}

// New is a status whose ErrorInfo gives its reason.
func New(code codes.Code, reason, message string) *status.Status {
	st, _ := status.New(code, message).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: Domain})
	return st
}

// Field is a status whose ErrorInfo gives reason and whose BadRequest names one field, the shape
// of the gateway's refusals of one part of a request. What comes from the request may not be
// UTF-8, which protobuf strings must be: it is written with U+FFFD in place of what is not.
func Field(code codes.Code, reason, message, field, description string) *status.Status {
	message, field = strings.ToValidUTF8(message, "\uFFFD"), strings.ToValidUTF8(field, "\uFFFD")
	st, _ := status.New(code, message).WithDetails(
		&errdetails.ErrorInfo{Reason: reason, Domain: Domain},
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: field, Description: description},
		}})
	return st
}

// TooLarge is the refusal of a JSON body over MaxBodyBytes.
func TooLarge() *status.Status {
	return New(codes.ResourceExhausted, "PAYLOAD_TOO_LARGE", "request body too large: the limit is 1 MiB")
}

// Write answers st under the HTTP status its code maps to.
func Write(w http.ResponseWriter, st *status.Status) {
	WriteCode(w, st, httpStatus(st))
}

// WriteCode answers st under the HTTP status code.
func WriteCode(w http.ResponseWriter, st *status.Status, code int) {
	body, err := apijson.Options.Marshal(st.Proto())
	if err != nil {
		body = []byte(`{"code": 13, "message": "internal error", "details": []}`)
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Trailer")
	if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		// Every 503 is retryable (a database failing over, the server restarting): say when.
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// Handler is grpc-gateway's error handler, and the answer to every failed call made by hand.
func Handler(ctx context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	if st.Code() == codes.Canceled && r.Context().Err() == nil {
		// The client did not cancel: the server reset the call while shutting down. To the client
		// that is a retryable 503, not the 499 grpc-gateway would answer.
		st = status.New(codes.Unavailable, "")
	}
	if pushback, ok := serverPushback(ctx); ok && st.Code() == codes.Unavailable && reason(st) == "OVERLOADED" {
		// The server's admission control refused the call: 503 with the server's Retry-After.
		w.Header().Set("Retry-After", RetryAfterSeconds(pushback))
		Write(w, st)
		return
	}
	Write(w, WithDetails(st))
}

// RoutingHandler answers a path or method no route serves.
func RoutingHandler(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpCode int) {
	st := New(codes.InvalidArgument, "INVALID_ARGUMENT", http.StatusText(httpCode))
	switch httpCode {
	case http.StatusMethodNotAllowed:
		st = New(codes.Unimplemented, "METHOD_NOT_ALLOWED", r.Method+" is not allowed on "+r.URL.Path)
	case http.StatusNotFound:
		st = New(codes.NotFound, "NOT_FOUND", "no such path: "+r.URL.Path)
	}
	WriteCode(w, st, httpCode)
}

// Header is a 400 naming a request header (lower case) and what is wrong with it.
func Header(reason, field, description string) *status.Status {
	return Field(codes.InvalidArgument, reason, "request header "+field+" "+description, strings.ToLower(field),
		description)
}

// RetryAfterSeconds is d in whole seconds (at least 1), as HTTP's Retry-After wants it.
func RetryAfterSeconds(d time.Duration) string {
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}

// ConsistencyTokenHeader carries read-your-writes across replicas (docs/consistency.md), both ways:
// a write's token, and a read sent with it is not served older than that write.
const ConsistencyTokenHeader = "consistency-token"

// AnswerConsistencyToken sets the Consistency-Token header from the server's header metadata.
func AnswerConsistencyToken(w http.ResponseWriter, header metadata.MD) {
	if values := header.Get(ConsistencyTokenHeader); len(values) > 0 {
		w.Header().Set("Consistency-Token", values[0])
	}
}

// RetryPushbackHeader is the trailer in which the server says when to retry a refused call (gRFC A6).
const RetryPushbackHeader = "grpc-retry-pushback-ms"

// serverPushback is how long the server asked the client to wait before retrying, if it did.
func serverPushback(ctx context.Context) (time.Duration, bool) {
	md, _ := runtime.ServerMetadataFromContext(ctx)
	values := md.TrailerMD.Get(RetryPushbackHeader)
	if len(values) == 0 {
		return 0, false
	}
	ms, err := strconv.Atoi(values[0])
	return time.Duration(ms) * time.Millisecond, err == nil && ms >= 0
}

// ReadFailure is the HTTP status for a request body that could not be read: 413 past its
// http.MaxBytesReader limit, 408 when its read deadline passed, else 400 (malformed, cut off).
func ReadFailure(err error) int {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.As(err, &netErr) && netErr.Timeout():
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}
