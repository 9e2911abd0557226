package httpapi

import (
	"net/http"
	"path"
	"strings"

	"hotel/gateway"
)

// The API reference page, GET /api/v1/docs: the embedded Swagger UI (gateway.SwaggerUI; nothing
// loaded from elsewhere at run time) showing /api/v1/openapi.json, its scripts and styles below it.
const apiDocsPath = "/api/v1/docs"

// The page: no inline script, no favicon request, no validator badge (validator.swagger.io).
const apiDocsPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Hotel Data Service API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="` + apiDocsPath + `/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="` + apiDocsPath + `/swagger-ui-bundle.js"></script>
<script src="` + apiDocsPath + `/init.js"></script>
</body>
</html>
`

const apiDocsInit = `window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
`

var apiDocsTypes = map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
	".txt": "text/plain; charset=utf-8", "": "text/plain; charset=utf-8"}

// serveAPIDocs answers the reference page's GETs (its routes: routes.go); 404 for a file it does
// not have.
func serveAPIDocs(w http.ResponseWriter, r *http.Request) {
	name, _ := strings.CutPrefix(r.URL.Path, apiDocsPath)
	var body []byte
	switch {
	case name == "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body = []byte(apiDocsPage)
	case name == "/init.js":
		w.Header().Set("Content-Type", apiDocsTypes[".js"])
		body = []byte(apiDocsInit)
	default:
		file, err := gateway.SwaggerUI.ReadFile("gen/swagger-ui" + name) // refuses "..": nothing outside
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", apiDocsTypes[path.Ext(name)])
		body = file
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(body)
}
