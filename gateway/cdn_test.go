package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestCDNOriginServesFilesImmutablyAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "img", "ab"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "img", "ab", "abc.webp"), []byte("RIFF0000WEBP"), 0o644); err != nil {
		t.Fatal(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	handler := withCDNOrigin(api, dir)

	get := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	file := get(http.MethodGet, "/cdn/img/ab/abc.webp")
	if file.Code != http.StatusOK || file.Body.String() != "RIFF0000WEBP" {
		t.Fatalf("file: %d %q", file.Code, file.Body.String())
	}
	if got := file.Header().Get("Content-Type"); got != "image/webp" {
		t.Errorf("Content-Type = %q", got)
	}
	if got := file.Header().Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
		t.Errorf("Cache-Control = %q", got)
	}
	if rec := get(http.MethodGet, "/cdn/img/ab/"); rec.Code != http.StatusNotFound {
		t.Errorf("directory listing: %d", rec.Code)
	}
	if rec := get(http.MethodGet, "/cdn/../cdn_test.go"); rec.Code == http.StatusOK {
		t.Errorf("path escape served: %d", rec.Code)
	}
	if rec := get(http.MethodGet, "/cdn/img/ab/missing.jpg"); rec.Code != http.StatusNotFound {
		t.Errorf("missing file: %d", rec.Code)
	}
	if rec := get(http.MethodPost, "/cdn/img/ab/abc.webp"); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d Allow=%q", rec.Code, rec.Header().Get("Allow"))
	}
	if rec := get(http.MethodGet, "/api/v1/rooms"); rec.Code != http.StatusTeapot {
		t.Errorf("API request not passed through: %d", rec.Code)
	}
}
