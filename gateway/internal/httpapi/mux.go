package httpapi

import (
	"context"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"

	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apijson"
	"hotel/gateway/internal/apirequest"
	"hotel/gateway/internal/telemetry"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// httpCodeHeader is set by the server on successful RPCs whose REST status is not 200 (a 201
// create, GET /health answering 503 while the database is down).
const httpCodeHeader = "x-http-code"

// apiMarshaler is grpc-gateway's JSONPb, which also writes a masked response (read_mask.go) and
// decodes a request body in one pass (body.go).
type apiMarshaler struct{ *runtime.JSONPb }

func (a apiMarshaler) Marshal(v any) ([]byte, error) {
	if m, ok := v.(maskedResponse); ok {
		return m.marshalJSON()
	}
	return a.JSONPb.Marshal(v)
}

// NewServeMux is grpc-gateway's mux with the API's JSON, query parameters, errors and headers;
// the generated handlers of Services are registered on it.
func NewServeMux() *runtime.ServeMux {
	return runtime.NewServeMux(
		// protojson refuses unknown fields (grpc-gateway's default marshaler would discard them).
		runtime.WithMarshalerOption(runtime.MIMEWildcard, apiMarshaler{&runtime.JSONPb{MarshalOptions: apijson.Options}}),
		runtime.SetQueryParameterParser(&apirequest.QueryParser{}),
		runtime.WithErrorHandler(apierror.Handler),
		runtime.WithRoutingErrorHandler(apierror.RoutingHandler),
		runtime.WithForwardResponseOption(etagHeader),
		runtime.WithForwardResponseOption(fromMetadata),
		runtime.WithForwardResponseRewriter(maskResponse),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithMiddlewares(telemetry.RouteRecorder, knownQueryParameters),
	)
}

// incomingHeader forwards the headers the server reads (X-Client-Id: the client's shares there
// too), plus grpc-gateway's defaults (the peer in x-forwarded-for). The trace goes as the gRPC
// call's own span, not as a header.
func incomingHeader(key string) (string, bool) {
	if name, ok := forwardedHeaders[textproto.CanonicalMIMEHeaderKey(key)]; ok {
		return name, true
	}
	return runtime.DefaultHeaderMatcher(key)
}

var forwardedHeaders = map[string]string{"If-Match": "if-match", "X-Request-Id": "x-request-id",
	"X-Client-Id": "x-client-id", "Consistency-Token": apierror.ConsistencyTokenHeader}

// fromMetadata answers what the server's header metadata says beyond the message: a write's
// consistency token, and the HTTP status when it is not 200 (httpCodeHeader).
func fromMetadata(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	apierror.AnswerConsistencyToken(w, md.HeaderMD)
	if values := md.HeaderMD.Get(httpCodeHeader); len(values) > 0 {
		if code, err := strconv.Atoi(values[0]); err == nil && code >= 200 && code < 600 {
			w.WriteHeader(code)
		}
	}
	return nil
}

// invalidUTF8 refuses a path or query parameter that is not UTF-8 text: protobuf strings must
// be, and the generated handler would only find out when marshalling, answering 500.
func invalidUTF8(r *http.Request) *status.Status {
	field := ""
	if !utf8.ValidString(r.URL.Path) {
		field = "path"
	}
	// A query with nothing escaped is the text it shows; only an escaped one is parsed to check.
	if strings.IndexByte(r.URL.RawQuery, '%') >= 0 || !utf8.ValidString(r.URL.RawQuery) {
		for key, values := range r.URL.Query() {
			for _, v := range values {
				if !utf8.ValidString(key) || !utf8.ValidString(v) {
					field = strings.ToValidUTF8(key, "\uFFFD")
				}
			}
		}
	}
	if field == "" {
		return nil
	}
	return apierror.Field(codes.InvalidArgument, "INVALID_ARGUMENT", field+": must be valid UTF-8 text", field,
		"must be valid UTF-8 text")
}
