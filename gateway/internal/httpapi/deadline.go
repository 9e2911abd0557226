package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"hotel/gateway/internal/apierror"
)

// grpcTimeoutHeader is gRPC's deadline header, which REST clients may send too.
const grpcTimeoutHeader = "Grpc-Timeout"

// deadline gives every call its deadline, in this one place (docs/operations.md, "Deadlines"):
// the client's Grpc-Timeout, clamped to --max-request-timeout, or fallback when it sends none
// (0: none, for change streams). A malformed or zero Grpc-Timeout is refused (zero would have
// passed already; the default is asked for by sending none); once read, it is removed, so
// grpc-gateway does not apply it a second time.
func (g *Gateway) deadline(fallback time.Duration) middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			timeout := fallback
			if value := r.Header.Get(grpcTimeoutHeader); value != "" {
				requested, err := parseGrpcTimeout(value)
				if err != nil {
					apierror.Write(w, apierror.Header("INVALID_ARGUMENT", "grpc-timeout", err.Error()))
					return
				}
				timeout = min(requested, g.cfg.MaxRequestTimeout)
				r.Header.Del(grpcTimeoutHeader)
			}
			if timeout > 0 {
				ctx, cancel := context.WithTimeout(r.Context(), timeout)
				defer cancel()
				r = r.WithContext(ctx)
			}
			next.ServeHTTP(w, r)
		})
	}
}

var grpcTimeoutUnits = map[byte]time.Duration{
	'H': time.Hour, 'M': time.Minute, 'S': time.Second, 'm': time.Millisecond, 'u': time.Microsecond, 'n': time.Nanosecond,
}

var errMalformedTimeout = errors.New("must be 1 to 8 digits and a unit (H, M, S, m, u, n), such as 5S")

// parseGrpcTimeout reads gRPC's TimeoutValue TimeoutUnit (at most 8 digits, then H, M, S, m, u
// or n). Values beyond what a time.Duration holds come back as the largest one (the caller
// clamps), never as an overflow into the past.
func parseGrpcTimeout(value string) (time.Duration, error) {
	if len(value) < 2 || len(value) > 9 {
		return 0, errMalformedTimeout
	}
	unit, ok := grpcTimeoutUnits[value[len(value)-1]]
	if !ok {
		return 0, errors.New("unit must be H, M, S, m, u or n")
	}
	digits := value[:len(value)-1]
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n < 0 || digits[0] == '+' || digits[0] == '-' {
		return 0, errMalformedTimeout
	}
	if n == 0 {
		return 0, errors.New("must be more than zero; send no Grpc-Timeout for the default deadline")
	}
	if n > math.MaxInt64/int64(unit) {
		return time.Duration(math.MaxInt64), nil
	}
	return time.Duration(n) * unit, nil
}
