package main

import (
	"net/http"
	"strings"
)

// withCDNOrigin serves the image CDN's origin directory under /cdn/ for local runs, so the
// image URLs the server returns (CDN base URL http://<gateway>/cdn) resolve on a developer
// machine. In production a real CDN fronts the origin and the gateway is started without it.
// Keys are content-addressed, so a file never changes and may be cached forever.
func withCDNOrigin(next http.Handler, dir string) http.Handler {
	files := http.StripPrefix("/cdn/", http.FileServer(http.Dir(dir)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/cdn/") {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		files.ServeHTTP(w, r)
	})
}
