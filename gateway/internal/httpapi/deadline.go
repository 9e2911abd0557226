package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"hotel/gateway/internal/apierror"
)

// grpcTimeoutHeader is gRPC's deadline header, which REST clients may send too.
const grpcTimeoutHeader = "Grpc-Timeout"

// deadline gives every call its deadline, in this one place (docs/operations.md, "Deadlines"):
// the client's Grpc-Timeout clamped to --max-request-timeout, or fallback when it sends none (0:
// none, for change streams). The header is read by grpc-gateway's own parser, the generated
// handlers' (runtime.AnnotateContext), once: it is removed once read. Around it only what gRPC's
// parser would refuse and grpc-gateway's takes: a zero (no deadline at all; the default is asked
// for by sending none) and more than 8 digits.
func (g *Gateway) deadline(fallback time.Duration) middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, timeout := r.Context(), fallback
			if value := r.Header.Get(grpcTimeoutHeader); value != "" {
				requested, err := runtime.AnnotateContext(ctx, timeoutReader, &http.Request{
					Header: http.Header{grpcTimeoutHeader: {value}}}, "")
				if err != nil || len(value) > 9 {
					apierror.Write(w, apierror.Header("INVALID_ARGUMENT", "grpc-timeout",
						"must be 1 to 8 digits and a unit (H, M, S, m, u, n), such as 5S"))
					return
				}
				if _, ok := requested.Deadline(); !ok {
					apierror.Write(w, apierror.Header("INVALID_ARGUMENT", "grpc-timeout",
						"must be more than zero; send no Grpc-Timeout for the default deadline"))
					return
				}
				ctx, timeout = requested, g.cfg.MaxRequestTimeout
				r.Header.Del(grpcTimeoutHeader)
			}
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// timeoutReader is a bare grpc-gateway mux, for its Grpc-Timeout parser alone.
var timeoutReader = runtime.NewServeMux()
