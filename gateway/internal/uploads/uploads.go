// Package uploads serves image uploads (docs/images.md): multipart/form-data streamed into the
// server's UploadImage client stream as it arrives, never held whole.
package uploads

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apijson"
)

// Uploads have limits of their own, not the JSON body's: a file is refused once past its limit.
const (
	RoomTypeImagesPath = "/api/v1/room-types/{room_type_id}/images"
	RoomImagesPath     = "/api/v1/rooms/{number}/images"
	maxUploadFileBytes = 40 << 20
	// The body around the file: boundaries, part headers and the text fields.
	maxUploadBodyBytes = maxUploadFileBytes + 64<<10
	maxUploadFieldLen  = 4 << 10
	// A message's encoding takes a buffer from gRPC's pool: a chunk with its framing under 32 KiB
	// a 32 KiB one, anything larger a whole 1 MiB one while it waits to be written (docs/decisions.md).
	uploadChunkBytes = 32<<10 - 64
)

// Client is the one call the upload handler makes (hotelv1.ImageServiceClient has it).
type Client interface {
	UploadImage(ctx context.Context, opts ...grpc.CallOption) (
		grpc.ClientStreamingClient[hotelv1.UploadImageRequest, hotelv1.UploadImageResponse], error)
}

// Handler serves one of the two upload paths by hand: grpc-gateway has no multipart handler,
// and a generated client-stream handler would read JSON messages.
type Handler struct {
	Mux    *runtime.ServeMux // for the headers the generated handlers forward
	Client Client
	Room   bool // POST /rooms/{number}/images?property_id=...; else a room type's
}

func uploadViolation(reason, field, description string) *status.Status {
	return apierror.Field(codes.InvalidArgument, reason, field+" "+description, field, description)
}

func uploadTooLarge() *status.Status {
	return apierror.Field(codes.ResourceExhausted, "PAYLOAD_TOO_LARGE", "request body too large: the file may be at most 40 MiB",
		"file", "is larger than 40 MiB")
}

// uploadMetadata is the metadata message from the path, the query and the text parts before the file.
func (u *Handler) uploadMetadata(r *http.Request, fields map[string]string) (*hotelv1.UploadImageMetadata, *status.Status) {
	md, st := fieldsMetadata(fields)
	if st != nil {
		return nil, st
	}
	if u.Room {
		md.Number = r.PathValue("number")
		md.PropertyId = r.URL.Query().Get("property_id")
		if md.PropertyId == "" {
			return nil, uploadViolation("PROPERTY_ID_REQUIRED", "property_id", "is required: the room's property")
		}
	} else {
		md.RoomTypeId = r.PathValue("room_type_id")
	}
	return md, nil
}

// fieldsMetadata is the metadata the text parts carry (alt_text, sort_order, request_id): the
// first message's, or the closing message's for the parts after the file.
func fieldsMetadata(fields map[string]string) (*hotelv1.UploadImageMetadata, *status.Status) {
	md := &hotelv1.UploadImageMetadata{AltText: fields["alt_text"], RequestId: fields["request_id"]}
	if value, ok := fields["sort_order"]; ok && value != "" {
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil {
			return nil, uploadViolation("INVALID_ARGUMENT", "sort_order", "must be an integer from 0 to 100000")
		}
		order := int32(n)
		md.SortOrder = &order
	}
	return md, nil
}

// readFields reads text parts into fields up to the file part, which it returns (nil at the
// body's end); a status (and HTTP code) when it cannot.
func readFields(parts *multipart.Reader, fields map[string]string) (*multipart.Part, *status.Status, int) {
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, nil, 0
		}
		if err != nil {
			st, code := bodyError(err)
			return nil, st, code
		}
		name := part.FormName()
		switch name {
		case "file":
			return part, nil, 0
		case "alt_text", "sort_order", "request_id":
		default:
			return nil, uploadViolation("UNKNOWN_FIELD", name,
				"is not a field of an upload (file, alt_text, sort_order, request_id)"), http.StatusBadRequest
		}
		value, err := io.ReadAll(io.LimitReader(part, maxUploadFieldLen+1))
		if err != nil {
			st, code := bodyError(err)
			return nil, st, code
		}
		if len(value) > maxUploadFieldLen {
			return nil, uploadViolation("INVALID_ARGUMENT", name, "is longer than 4 KiB"), http.StatusBadRequest
		}
		fields[name] = string(value)
	}
}

// bodyError is the answer to a body that could not be read: 413 past the limit, 408 too slow,
// else 400 (a malformed or cut-off body).
func bodyError(err error) (*status.Status, int) {
	switch code := apierror.ReadFailure(err); code {
	case http.StatusRequestEntityTooLarge:
		return uploadTooLarge(), code
	case http.StatusRequestTimeout:
		return status.New(codes.DeadlineExceeded, "the request body did not arrive in time"), code
	default:
		return uploadViolation("INVALID_ARGUMENT", "body", "is not complete multipart/form-data: "+err.Error()), code
	}
}

func (u *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxUploadBodyBytes {
		apierror.Write(w, uploadTooLarge())
		return
	}
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		apierror.Write(w, apierror.Header("UNSUPPORTED_MEDIA_TYPE", "content-type",
			"must be multipart/form-data with a boundary (a part named file, and alt_text, sort_order, request_id)"))
		return
	}
	// The request's deadline bounds reading the body too: a client that stops sending is cut off.
	if deadline, ok := r.Context().Deadline(); ok {
		control := http.NewResponseController(w)
		_ = control.SetReadDeadline(deadline)
		_ = control.SetWriteDeadline(deadline.Add(5 * time.Second))
	}
	parts := multipart.NewReader(http.MaxBytesReader(w, r.Body, maxUploadBodyBytes), params["boundary"])
	fields := map[string]string{}
	file, st, code := readFields(parts, fields)
	if st == nil && file == nil {
		st, code = uploadViolation("INVALID_ARGUMENT", "file", "is required: a part named file (the picture)"), http.StatusBadRequest
	}
	if st != nil {
		apierror.WriteCode(w, st, code)
		return
	}
	u.stream(w, r, fields, file, parts)
}

// stream sends the metadata, then the file part in chunks, then answers what the server did.
// Anything wrong on the way cancels the stream: the server stores nothing for it.
func (u *Handler) stream(w http.ResponseWriter, r *http.Request, fields map[string]string, file *multipart.Part,
	parts *multipart.Reader) {
	md, st := u.uploadMetadata(r, fields)
	if st != nil {
		apierror.Write(w, st)
		return
	}
	annotated, err := runtime.AnnotateContext(r.Context(), u.Mux, r, "/hotel.v1.ImageService/UploadImage",
		runtime.WithHTTPPathPattern(r.Pattern))
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
		return
	}
	ctx, cancel := context.WithCancel(annotated)
	defer cancel()
	c := &call{w: w, r: r, cancel: cancel}
	c.stream, err = u.Client.UploadImage(ctx, grpc.Header(&c.header), grpc.Trailer(&c.trailer))
	if err != nil {
		apierror.Handler(r.Context(), nil, nil, w, r, err)
		return
	}
	if c.send(metadataMessage(md)) && c.sendFile(file) && c.sendClosing(parts) {
		c.respond()
	}
}

// call is one UploadImage stream and the request it serves.
type call struct {
	w               http.ResponseWriter
	r               *http.Request
	cancel          context.CancelFunc
	stream          grpc.ClientStreamingClient[hotelv1.UploadImageRequest, hotelv1.UploadImageResponse]
	header, trailer metadata.MD
}

// answer is the server's answer, with its header and trailer for the error handler (Retry-After).
func (c *call) answer(err error) {
	withMD := runtime.NewServerMetadataContext(c.r.Context(), runtime.ServerMetadata{HeaderMD: c.header, TrailerMD: c.trailer})
	apierror.Handler(withMD, nil, nil, c.w, c.r, err)
}

// failed answers st and cancels the stream: the server stores nothing for a cancelled one.
func (c *call) failed(st *status.Status, code int) bool {
	c.cancel()
	apierror.WriteCode(c.w, st, code)
	return false
}

// send is false once the server has ended the call (Send's io.EOF): its status is answered.
func (c *call) send(msg *hotelv1.UploadImageRequest) bool {
	if c.stream.Send(msg) == nil {
		return true
	}
	_, err := c.stream.CloseAndRecv()
	c.answer(err)
	return false
}

// sendFile sends the file part in chunks, up to its limit.
func (c *call) sendFile(file *multipart.Part) bool {
	buf := make([]byte, uploadChunkBytes)
	for sent := 0; ; {
		n, readErr := io.ReadFull(file, buf)
		if sent += n; sent > maxUploadFileBytes {
			return c.failed(uploadTooLarge(), http.StatusRequestEntityTooLarge)
		}
		if n > 0 && !c.send(&hotelv1.UploadImageRequest{Part: &hotelv1.UploadImageRequest_Chunk{Chunk: buf[:n]}}) {
			return false
		}
		if errors.Is(readErr, io.EOF) || errors.Is(readErr, io.ErrUnexpectedEOF) {
			return true // ErrUnexpectedEOF: the last, shorter chunk
		}
		if readErr != nil {
			return c.failed(bodyError(readErr))
		}
	}
}

// sendClosing sends the text parts after the file (generators write the parts in an order of
// their own) in a closing metadata message: the server judges the fields once the stream has ended.
func (c *call) sendClosing(parts *multipart.Reader) bool {
	closing := map[string]string{}
	second, st, code := readFields(parts, closing)
	if second != nil {
		st, code = uploadViolation("INVALID_ARGUMENT", "file", "is given twice: an upload has one file"), http.StatusBadRequest
	}
	if st != nil {
		return c.failed(st, code)
	}
	if len(closing) == 0 {
		return true
	}
	md, st := fieldsMetadata(closing)
	if st != nil {
		return c.failed(st, http.StatusBadRequest)
	}
	return c.send(metadataMessage(md))
}

// respond answers the stored image (201 when created), or the server's error.
func (c *call) respond() {
	resp, err := c.stream.CloseAndRecv()
	if err != nil {
		c.answer(err)
		return
	}
	body, err := apijson.Options.Marshal(resp.GetImage())
	if err != nil {
		c.answer(err)
		return
	}
	// The upload's write, like every other, answers its consistency token (docs/consistency.md).
	apierror.AnswerConsistencyToken(c.w, c.header)
	c.w.Header().Set("Content-Type", "application/json")
	if resp.GetCreated() {
		c.w.WriteHeader(http.StatusCreated)
	}
	_, _ = c.w.Write(body)
}

func metadataMessage(md *hotelv1.UploadImageMetadata) *hotelv1.UploadImageRequest {
	return &hotelv1.UploadImageRequest{Part: &hotelv1.UploadImageRequest_Metadata{Metadata: md}}
}
