package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

func TestETagMatchesIsWeakComparisonOverAList(t *testing.T) {
	for _, c := range []struct {
		header, etag string
		want         bool
	}{
		{`"a"`, `"a"`, true},
		{`W/"a"`, `"a"`, true},
		{`"x", "a"`, `"a"`, true},
		{`*`, `"a"`, true},
		{`"b"`, `"a"`, false},
		{`"a"`, ``, false},
	} {
		if got := etagMatches(c.header, c.etag); got != c.want {
			t.Errorf("etagMatches(%q, %q) = %v", c.header, c.etag, got)
		}
	}
}

func TestETagIsSentSpelledAsDeclared(t *testing.T) {
	w := httptest.NewRecorder()
	if err := etagHeader(context.Background(), w, &hotelv1.Issue{Etag: "7"}); err != nil {
		t.Fatal(err)
	}
	// The key as written on the wire: "ETag" (the document's spelling), not Go's canonical "Etag".
	if got := w.Header()["ETag"]; len(got) != 1 || got[0] != `"7"` || w.Header()["Etag"] != nil {
		t.Errorf("headers %v", w.Header())
	}
}

func TestRepresentationETagFollowsTheContent(t *testing.T) {
	etag := func(room *hotelv1.Room) string {
		w := httptest.NewRecorder()
		_ = etagHeader(context.Background(), w, &hotelv1.RoomMaintenance{Room: room})
		return strings.Join(w.Header()["ETag"], ",")
	}
	a := etag(&hotelv1.Room{Number: "101", PropertyId: "BER1"})
	b := etag(&hotelv1.Room{Number: "101", PropertyId: "BER1"})
	c := etag(&hotelv1.Room{Number: "101", PropertyId: "BER1", OutOfOrder: true})
	if a != b || a == c || !strings.HasPrefix(a, `"`) {
		t.Errorf("etags %s %s %s", a, b, c)
	}
}

func TestConditionalGetAnswers304OnlyForAMatchingOK(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setETag(w.Header(), `"v1"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number":"101"}`))
	})
	for _, c := range []struct {
		method, ifNoneMatch string
		status              int
		body                string
	}{
		{http.MethodGet, `"v1"`, http.StatusNotModified, ""},
		{http.MethodGet, `"v0"`, http.StatusOK, `{"number":"101"}`},
		{http.MethodGet, "", http.StatusOK, `{"number":"101"}`},
		{http.MethodPatch, `"v1"`, http.StatusOK, `{"number":"101"}`},
	} {
		r := httptest.NewRequest(c.method, "/api/v1/rooms/101?property_id=BER1", nil)
		if c.ifNoneMatch != "" {
			r.Header.Set("If-None-Match", c.ifNoneMatch)
		}
		w := httptest.NewRecorder()
		conditionalGet(next).ServeHTTP(w, r)
		if w.Code != c.status || w.Body.String() != c.body || !slices.Equal(w.Header()["ETag"], []string{`"v1"`}) {
			t.Errorf("%s If-None-Match %q: %d %q %v", c.method, c.ifNoneMatch, w.Code, w.Body.String(), w.Header())
		}
	}
}
