package httpapi

import (
	"net/http"
	"regexp"
	"strings"

	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/overload"

	"google.golang.org/grpc/status"
)

const (
	// maxHeaderBytes is the largest request header (name and value) the API accepts: 431 above it.
	maxHeaderBytes = 8 << 10
	// maxForwardedBytes is the most header bytes forwarded as gRPC metadata, counted as HTTP/2
	// does (name + value + 32 per entry): the rest of the server's 8 KiB is for what the gateway adds.
	maxForwardedBytes = 6 << 10
)

// headerTooLarge refuses, naming it, a request header over 8 KiB or forwarded headers over the
// metadata budget, which the server would refuse and the client see as a 500.
func headerTooLarge(r *http.Request) *status.Status {
	forwarded := 0
	for name, values := range r.Header {
		for _, v := range values {
			if len(name)+len(v) > maxHeaderBytes {
				return apierror.Header("HEADER_TOO_LARGE", name, "is larger than 8 KiB")
			}
			if _, ok := incomingHeader(name); ok {
				forwarded += len("grpcgateway-") + len(name) + len(v) + 32
				if strings.EqualFold(name, "Authorization") {
					forwarded += len(name) + len(v) + 32 // also forwarded under its own name
				}
			}
		}
	}
	if forwarded > maxForwardedBytes {
		return apierror.Header("HEADER_TOO_LARGE", "headers",
			"are larger than 6 KiB in all (Cookie, User-Agent, Authorization, If-Match, ...)")
	}
	return nil
}

func bodyTooLarge(r *http.Request) *status.Status {
	if r.ContentLength > apierror.MaxBodyBytes {
		return apierror.TooLarge()
	}
	return nil
}

var validClientID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

func invalidClientID(r *http.Request) *status.Status {
	if id, sent := r.Header[overload.ClientIDHeader]; sent && (len(id) != 1 || !validClientID.MatchString(id[0])) {
		return apierror.Header("INVALID_ARGUMENT", overload.ClientIDHeader, "must be 1 to 64 letters, digits, '.', '_', ':' or '-'")
	}
	return nil
}
