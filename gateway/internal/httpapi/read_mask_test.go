package httpapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apijson"
)

func withServerHeader(pairs ...string) context.Context {
	return runtime.NewServerMetadataContext(context.Background(), runtime.ServerMetadata{HeaderMD: metadata.Pairs(pairs...)})
}

func maskedJSONOf(t *testing.T, ctx context.Context, msg proto.Message) map[string]any {
	t.Helper()
	rewritten, err := maskResponse(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	body, err := apiMarshaler{&runtime.JSONPb{MarshalOptions: apijson.Options}}.Marshal(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out
}

func TestMaskedResponsesShowOnlyTheServersPaths(t *testing.T) {
	page := &hotelv1.ListRoomsResponse{
		Data: []*hotelv1.Room{
			{Number: "101", Floor: 1, Available: false, Images: []*hotelv1.Image{{Id: "i1", AltText: "Bed"}}},
			{Number: "102", Floor: 1, Available: true},
		},
		NextPageToken: "next",
	}
	got := maskedJSONOf(t, withServerHeader(readMaskHeader, "data.available,data.images.id,data.number,next_page_token,change_cursor"), page)
	want := map[string]any{
		"data": []any{
			map[string]any{"number": "101", "available": false, "images": []any{map[string]any{"id": "i1"}}},
			map[string]any{"number": "102", "available": true, "images": []any{}},
		},
		"next_page_token": "next",
		"change_cursor":   "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("masked page = %v, want %v", got, want)
	}
}

func TestUnmaskedResponsesAreUnchanged(t *testing.T) {
	room := &hotelv1.Room{Number: "101"}
	rewritten, _ := maskResponse(withServerHeader(httpCodeHeader, "200"), room)
	if rewritten != proto.Message(room) {
		t.Fatalf("rewritten without a mask: %T", rewritten)
	}
	got := maskedJSONOf(t, context.Background(), room)
	if len(got) != room.ProtoReflect().Descriptor().Fields().Len() || got["floor"] != float64(0) {
		t.Errorf("unmasked room lost fields: %v", got)
	}
}

func TestAShorterPathKeepsTheWholeField(t *testing.T) {
	image := map[string]any{"id": "i1", "alt_text": "Bed"}
	got := keep(map[string]any{"images": []any{image}}, []string{"images", "images.id"}, "")
	if want := map[string]any{"images": []any{map[string]any{"id": "i1", "alt_text": "Bed"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("images.id after images narrowed it: %v", got)
	}
}

func TestMaskedResourceKeepsTheFullETag(t *testing.T) {
	w := httptest.NewRecorder()
	ctx := withServerHeader(readMaskHeader, "number", resourceEtagHeader, "0123456789abcdef")
	if err := etagHeader(ctx, w, &hotelv1.Room{Number: "101"}); err != nil {
		t.Fatal(err)
	}
	if got := w.Header()["ETag"]; !slices.Equal(got, []string{`"0123456789abcdef"`}) {
		t.Errorf("ETag = %q", got)
	}
}

func TestARoomsETagIsTheServersWholeRepresentationEtag(t *testing.T) {
	// 1.5.0: the room's data etag and its housekeeping's, joined by the server; not the field alone.
	w := httptest.NewRecorder()
	ctx := withServerHeader(resourceEtagHeader, "0123456789abcdef.fedcba9876543210")
	room := &hotelv1.Room{Number: "101", Etag: "0123456789abcdef"}
	if err := etagHeader(ctx, w, room); err != nil {
		t.Fatal(err)
	}
	if got := w.Header()["ETag"]; !slices.Equal(got, []string{`"0123456789abcdef.fedcba9876543210"`}) {
		t.Errorf("ETag = %q", got)
	}
}
