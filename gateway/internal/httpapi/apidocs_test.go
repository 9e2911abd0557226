package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

func TestAPIDocsServesThePageAndOnlyTheEmbeddedFiles(t *testing.T) {
	h := newTestHandler(t)
	cases := []struct {
		target, contentType string
		status              int
	}{
		{"/api/v1/docs", "text/html; charset=utf-8", http.StatusOK},
		{"/api/v1/docs/init.js", "text/javascript; charset=utf-8", http.StatusOK},
		{"/api/v1/docs/swagger-ui-bundle.js", "text/javascript; charset=utf-8", http.StatusOK},
		{"/api/v1/docs/swagger-ui.css", "text/css; charset=utf-8", http.StatusOK},
		{"/api/v1/docs/LICENSE", "text/plain; charset=utf-8", http.StatusOK},
		{"/api/v1/docs/", "", http.StatusNotFound},
		{"/api/v1/docs/missing.js", "", http.StatusNotFound},
		{"/api/v1/docs/%2e%2e/openapi/openapi.json", "", http.StatusNotFound},
		{"/api/v1/docsx", "", http.StatusNotFound},
	}
	for _, c := range cases {
		rec, _ := do(t, h, "GET", c.target, nil)
		if rec.Code != c.status || (c.contentType != "" && rec.Header().Get("Content-Type") != c.contentType) {
			t.Errorf("GET %s: %d %q, want %d %q", c.target, rec.Code, rec.Header().Get("Content-Type"), c.status,
				c.contentType)
		}
	}
	page, _ := do(t, h, "GET", "/api/v1/docs", nil)
	for _, ref := range []string{`href="/api/v1/docs/swagger-ui.css"`, `src="/api/v1/docs/swagger-ui-bundle.js"`,
		`src="/api/v1/docs/init.js"`} {
		if !strings.Contains(page.Body.String(), ref) {
			t.Errorf("the page does not load %s", ref)
		}
	}
	if strings.Contains(page.Body.String(), "http") {
		t.Errorf("the page names another origin:\n%s", page.Body.String())
	}
	if post, _ := do(t, h, "POST", "/api/v1/docs", nil); post.Code == http.StatusOK {
		t.Errorf("POST /api/v1/docs answered 200")
	}
}
