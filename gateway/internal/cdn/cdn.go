// Package cdn serves the image origin directory under /cdn/ for local runs (production: a real CDN).
package cdn

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"path"
	"regexp"
	"strings"
	"syscall"
)

// cdnContentTypes are the types of the files hotel-images writes, fixed here so that every machine
// answers the same (not the host's /etc/mime.types); anything else is opaque bytes (nosniff).
var cdnContentTypes = map[string]string{
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".png":  "image/png",
	".webp": "image/webp",
	".avif": "image/avif",
}

// NewOrigin serves the image origin directory dir under /cdn/, so the image URLs the server
// returns resolve on a developer machine: only regular files inside dir, no listings, no dot files,
// nothing through a symlink that leaves dir (os.Root), and a plain 404 for everything refused.
// Keys are content-addressed: cached forever. More than maxRanges ranges get the whole file, as
// with Apache's MaxRanges and nginx's max_ranges: thousands of tiny ranges are costly to serve.
func NewOrigin(dir string) (http.Handler, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("CDN origin directory: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/cdn/")
		if !servable(name) {
			http.NotFound(w, r)
			return
		}
		// O_NONBLOCK: opening a FIFO planted in the origin must not hang the request; it is
		// refused below like any other file that is not regular.
		f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || !info.Mode().IsRegular() {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", cmp.Or(cdnContentTypes[strings.ToLower(path.Ext(name))], "application/octet-stream"))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		if stem := strings.TrimSuffix(path.Base(name), path.Ext(name)); sha256Hex.MatchString(stem) {
			h.Set("ETag", `"`+stem+`"`) // the key is the content's hash: a strong validator
		}
		if strings.Count(r.Header.Get("Range"), ",") >= maxRanges {
			r.Header.Del("Range")
		}
		http.ServeContent(w, r, name, info.ModTime(), f)
	}), nil
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// maxRanges is the most ranges a /cdn/ Range request is answered with; beyond it, the whole file.
const maxRanges = 4

// servable says whether a request path below /cdn/ (already unescaped) may name a file of the
// origin. Refused: empty segments (also a trailing slash, i.e. a directory), segments starting
// with a dot (".", "..", dotfiles, temporary files) and backslashes or NULs.
func servable(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	for _, segment := range strings.Split(name, "/") {
		if segment == "" || strings.HasPrefix(segment, ".") {
			return false
		}
	}
	return true
}
