package cdn

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const testKey = "ab12c0ffee000000000000000000000000000000000000000000000000000001"

// testCDNOrigin builds an origin directory with one real-looking variant, and beside it (outside
// the root) a secret that no request may reach.
func testCDNOrigin(t *testing.T) (root, outside string, handler http.Handler) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "origin")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "img", "ab"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "img", "ab", testKey+".webp"), "RIFF0000WEBPVP8 data")
	write(filepath.Join(outside, "secret.txt"), "secret")
	handler, err := NewOrigin(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, outside, handler
}

func serve(h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	h.ServeHTTP(rec, req)
	return rec
}

func TestCDNOriginServesVariantsImmutably(t *testing.T) {
	_, _, h := testCDNOrigin(t)
	path := "/cdn/img/ab/" + testKey + ".webp"
	file := serve(h, http.MethodGet, path, nil)
	if file.Code != http.StatusOK || file.Body.String() != "RIFF0000WEBPVP8 data" {
		t.Fatalf("file: %d %q", file.Code, file.Body.String())
	}
	for header, want := range map[string]string{
		"Content-Type":           "image/webp",
		"Cache-Control":          "public, max-age=31536000, immutable",
		"X-Content-Type-Options": "nosniff",
		"Accept-Ranges":          "bytes",
		"ETag":                   `"` + testKey + `"`,
	} {
		if got := file.Header().Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	if file.Header().Get("Last-Modified") == "" {
		t.Error("no Last-Modified")
	}

	head := serve(h, http.MethodHead, path, nil)
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") != "20" ||
		head.Header().Get("Content-Type") != "image/webp" {
		t.Errorf("HEAD: %d body=%q headers=%v", head.Code, head.Body.String(), head.Header())
	}

	part := serve(h, http.MethodGet, path, map[string]string{"Range": "bytes=4-7"})
	if part.Code != http.StatusPartialContent || part.Body.String() != "0000" ||
		part.Header().Get("Content-Range") != "bytes 4-7/20" {
		t.Errorf("range: %d %q %q", part.Code, part.Body.String(), part.Header().Get("Content-Range"))
	}
	suffix := serve(h, http.MethodGet, path, map[string]string{"Range": "bytes=-4"})
	if suffix.Code != http.StatusPartialContent || suffix.Body.String() != "data" {
		t.Errorf("suffix range: %d %q", suffix.Code, suffix.Body.String())
	}
	if rec := serve(h, http.MethodGet, path, map[string]string{"Range": "bytes=100-"}); rec.Code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("unsatisfiable range: %d", rec.Code)
	}
	if rec := serve(h, http.MethodGet, path, map[string]string{"If-None-Match": `"` + testKey + `"`}); rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", rec.Code)
	}
}

func TestCDNOriginRefusesWhatIsNotARegularFileInsideTheRoot(t *testing.T) {
	root, outside, h := testCDNOrigin(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/etc", filepath.Join(root, "etcdir")))
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "img", "ab", "secret.jpg")))
	must(os.Symlink("../../../outside", filepath.Join(root, "img", "ab", "up")))
	must(os.WriteFile(filepath.Join(root, ".env"), []byte("PASSWORD=x"), 0o600))
	must(os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]"), 0o644))
	must(os.WriteFile(filepath.Join(root, "img", "ab", ".tmp-"+testKey+".jpg"), []byte("half"), 0o644))
	must(syscall.Mkfifo(filepath.Join(root, "img", "ab", "fifo.jpg"), 0o644))

	for _, path := range []string{
		"/cdn/etcdir/passwd",                   // symlinked directory leaving the root
		"/cdn/img/ab/secret.jpg",               // symlinked file leaving the root
		"/cdn/img/ab/up/secret.txt",            // relative symlink leaving the root
		"/cdn/../cdn_test.go",                  // dot-dot
		"/cdn/img/%2e%2e/%2e%2e/x",             // escaped dot-dot
		"/cdn/.env",                            // dotfile
		"/cdn/.git/config",                     // dot directory
		"/cdn/img/ab/.tmp-" + testKey + ".jpg", // a file being written
		"/cdn/img/ab/fifo.jpg",                 // not a regular file (and must not block)
		"/cdn/img/ab",                          // directory
		"/cdn/img/ab/",                         // directory listing
		"/cdn/",                                // the root itself
		"/cdn/img//ab/" + testKey + ".webp",
		"/cdn/img/ab/missing.jpg",
	} {
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() { done <- serve(h, http.MethodGet, path, nil) }()
		select {
		case rec := <-done:
			if rec.Code != http.StatusNotFound {
				t.Errorf("%s: %d %q", path, rec.Code, rec.Body.String())
			}
			if strings.Contains(rec.Body.String(), "root") || strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("%s: body says too much: %q", path, rec.Body.String())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: request hangs", path)
		}
	}

	// A symlink that stays inside the root reaches a regular file inside the root: served.
	must(os.Symlink(testKey+".webp", filepath.Join(root, "img", "ab", "alias.webp")))
	if rec := serve(h, http.MethodGet, "/cdn/img/ab/alias.webp", nil); rec.Code != http.StatusOK {
		t.Errorf("symlink inside the root: %d", rec.Code)
	}
}

func TestCDNOriginContentTypesAndMethods(t *testing.T) {
	root, _, h := testCDNOrigin(t)
	for name, want := range map[string]string{
		"a.jpg": "image/jpeg", "a.JPG": "image/jpeg", "a.png": "image/png", "a.avif": "image/avif",
		"a.html": "application/octet-stream", "a": "application/octet-stream",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("<html>x</html>"), 0o644); err != nil {
			t.Fatal(err)
		}
		rec := serve(h, http.MethodGet, "/cdn/"+name, nil)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != want {
			t.Errorf("%s: %d Content-Type %q, want %q", name, rec.Code, rec.Header().Get("Content-Type"), want)
		}
		if rec.Header().Get("ETag") != "" {
			t.Errorf("%s: ETag for a name that is not a content hash", name)
		}
	}
	if rec := serve(h, http.MethodPost, "/cdn/a.jpg", nil); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d Allow=%q", rec.Code, rec.Header().Get("Allow"))
	}
}

func TestMultiRangeRequestsBeyondTheLimitAreAnsweredWhole(t *testing.T) {
	_, _, h := testCDNOrigin(t)
	path := "/cdn/img/ab/" + testKey + ".webp"
	few := serve(h, http.MethodGet, path, map[string]string{"Range": "bytes=0-0,2-2,4-4,6-6"})
	if few.Code != http.StatusPartialContent || !strings.HasPrefix(few.Header().Get("Content-Type"), "multipart/byteranges") {
		t.Errorf("%d ranges: %d %q", maxRanges, few.Code, few.Header().Get("Content-Type"))
	}
	many := "bytes=" + strings.Repeat("0-0,", 5000) + "1-1"
	whole := serve(h, http.MethodGet, path, map[string]string{"Range": many})
	if whole.Code != http.StatusOK || whole.Body.String() != "RIFF0000WEBPVP8 data" {
		t.Errorf("5001 ranges: %d, %d bytes", whole.Code, whole.Body.Len())
	}
}

func TestCDNOriginNeedsAnExistingDirectory(t *testing.T) {
	if _, err := NewOrigin(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("a missing origin directory was accepted")
	}
}
