package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// etagHeader sends the ETag of the single resource a response carries: its etag field (derived by
// the server from every row the representation shows), or the one the server sends beside it when
// that is not the field (x-resource-etag): for a masked answer the full resource's, which
// validates every masked representation too, and for a room its etag joined with its
// housekeeping's (1.5.0), so the header changes with either. The room overview has none and its
// due dates move with the calendar: its ETag is a digest of the representation.
func etagHeader(ctx context.Context, w http.ResponseWriter, msg proto.Message) error {
	switch m := msg.(type) {
	case interface{ GetEtag() string }:
		tag := m.GetEtag()
		if md, ok := runtime.ServerMetadataFromContext(ctx); ok {
			if values := md.HeaderMD.Get(resourceEtagHeader); len(values) > 0 {
				tag = values[0]
			}
		}
		if tag != "" {
			setETag(w.Header(), `"`+tag+`"`)
		}
	case *hotelv1.RoomMaintenance:
		if body, err := (proto.MarshalOptions{Deterministic: true}).Marshal(m); err == nil {
			sum := sha256.Sum256(body)
			setETag(w.Header(), `"`+hex.EncodeToString(sum[:12])+`"`)
		}
	}
	return nil
}

// setETag sends the header spelled as the OpenAPI document declares it, "ETag": Header.Set would
// write Go's canonical "Etag", which clients reading headers case-sensitively (OpenAPI Generator's
// Python client) do not find.
func setETag(h http.Header, tag string) {
	h.Del("ETag")
	h["ETag"] = []string{tag}
}

// etagMatches is If-None-Match's weak comparison: any listed tag (or *) equal to etag.
func etagMatches(ifNoneMatch, etag string) bool {
	if etag == "" {
		return false
	}
	etag = strings.TrimPrefix(etag, "W/")
	for _, candidate := range strings.Split(ifNoneMatch, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == etag {
			return true
		}
	}
	return false
}

// conditionalGet answers 304 Not Modified (no body) to a GET with If-None-Match when the
// response would be a 200 carrying a matching ETag. Only those requests are buffered (so the
// route table never puts it in front of a stream).
func conditionalGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ifNoneMatch := r.Header.Get("If-None-Match")
		if r.Method != http.MethodGet || ifNoneMatch == "" {
			next.ServeHTTP(w, r)
			return
		}
		buffered := &bufferedResponse{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(buffered, r)
		tag := w.Header()["ETag"] // as setETag spells it
		if buffered.status == http.StatusOK && len(tag) == 1 && etagMatches(ifNoneMatch, tag[0]) {
			w.Header().Del("Content-Type")
			w.Header().Del("Content-Length")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.WriteHeader(buffered.status)
		_, _ = w.Write(buffered.body.Bytes())
	})
}

// bufferedResponse holds a response's status and body back; its headers are w's.
type bufferedResponse struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
	wrote  bool
}

func (b *bufferedResponse) WriteHeader(code int) {
	if !b.wrote {
		b.status, b.wrote = code, true
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
