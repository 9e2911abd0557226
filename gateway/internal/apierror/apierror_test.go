package apierror

import (
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestHTTPStatusMapping(t *testing.T) {
	transition, _ := status.New(codes.FailedPrecondition, "x").
		WithDetails(&errdetails.ErrorInfo{Reason: "INVALID_TRANSITION"})
	cases := map[*status.Status]int{
		status.New(codes.InvalidArgument, "x"):    400,
		status.New(codes.NotFound, "x"):           404,
		status.New(codes.Aborted, "x"):            409,
		transition:                                409,
		status.New(codes.FailedPrecondition, "x"): 400,
		status.New(codes.Unavailable, "x"):        503,
		status.New(codes.DeadlineExceeded, "x"):   504,
		TooLarge():                                413,
	}
	for st, want := range cases {
		if got := httpStatus(st); got != want {
			t.Errorf("%v: got %d, want %d", st.Code(), got, want)
		}
	}
}
