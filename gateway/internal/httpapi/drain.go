package httpapi

import (
	"net/http"
	"sync/atomic"

	"hotel/gateway/internal/apierror"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// readinessPath is the readiness probe (GET /api/v1/health); liveness and startup are not it.
const readinessPath = "/api/v1/health"

// drainState is set on SIGTERM: from then on the readiness probe (the route table puts this
// middleware on it alone) answers 503 at once, without asking the server, while every other
// request is still served (the shutdown delay).
type drainState struct{ draining atomic.Bool }

func (d *drainState) refuseWhileDraining(next http.Handler) http.Handler {
	st, _ := status.New(codes.Unavailable, "the gateway is shutting down; send new requests to another replica").
		WithDetails(&errdetails.ErrorInfo{Reason: "SHUTTING_DOWN", Domain: apierror.Domain})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.draining.Load() {
			apierror.Write(w, st)
			return
		}
		next.ServeHTTP(w, r)
	})
}
