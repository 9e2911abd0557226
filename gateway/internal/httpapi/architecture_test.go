package httpapi

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"hotel/gateway/internal/uploads"
)

// routeChainTable is the route table as docs/architecture.md shows it: each route's pattern and
// the chain its requests pass, observe first (every route is observed) and its handler last.
func routeChainTable(routes []route) string {
	var b strings.Builder
	b.WriteString("| Route | Chain |\n|---|---|\n")
	for _, rt := range routes {
		names := []string{"observe"}
		for _, l := range rt.chain {
			names = append(names, l.name)
		}
		b.WriteString("| `" + rt.pattern + "` | " + strings.Join(names, " → ") + " → handler |\n")
	}
	return b.String()
}

// docs/architecture.md's picture of the route table is the code's (with uploads and the CDN
// origin, as scripts/up.sh runs the gateway).
func TestArchitectureDocShowsTheRouteTable(t *testing.T) {
	_, g := startBackendGateway(t)
	g.Uploads = struct{ uploads.Client }{}
	g.CDN = http.NotFoundHandler()
	want := routeChainTable(g.routes())
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/architecture.md does not show the route table; it should contain:\n%s", want)
	}
}
