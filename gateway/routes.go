package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	hotelv1 "hotel/gateway/gen/hotel/v1"
)

// middleware wraps a handler with one concern (admission, deadlines, ...). None of them looks at
// the path: which requests get which middleware is decided by the route table alone.
type middleware func(http.Handler) http.Handler

// link is a middleware of a route's chain, with the name docs/architecture.md shows it by.
type link struct {
	name string
	wrap middleware
}

// route is one line of the route table: an http.ServeMux pattern, the label its requests carry
// in logs and metrics, and the chain in front of its handler, outermost first. Every route is
// observed (logged, measured, traced) before its chain runs. An empty label means the handler is
// grpc-gateway's mux, which names the matched proto pattern itself (routeRecorder), and _OTHER
// when nothing matched.
type route struct {
	pattern string
	label   string
	chain   []link
	handler http.Handler
}

// gateway is what the route table's handlers and middlewares are built from.
type gateway struct {
	cfg     config
	api     *runtimeMux  // the generated handlers
	watch   http.Handler // GET /api/v1/changes/stream (changes.go)
	uploads uploadClient // POST .../images (uploads.go); nil: no upload routes
	metrics *metrics
	logger  *slog.Logger
	calls   *admission       // in-flight calls, in total and per client
	streams *streamAdmission // change streams, in total and per client
	drain   *drainState
	cdn     http.Handler     // nil: no /cdn/ route (production: a real CDN serves it)
	bodies  prometheus.Gauge // requests whose body is being read, before admission
}

// newGateway builds the gateway's parts from cfg; watchers carry the change streams.
func newGateway(cfg config, api *runtimeMux, watchers watchClient, logger *slog.Logger) *gateway {
	m := newMetrics()
	bodies := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "hotel_gateway_request_bodies_reading",
		Help: "Requests whose body is still arriving (they hold no admission slot; GATEWAY_BODY_TIMEOUT ends them).",
	})
	m.registry.MustRegister(bodies)
	return &gateway{
		bodies:  bodies,
		cfg:     cfg,
		api:     api,
		watch:   &changeStream{mux: api, client: watchers, writeTimeout: cfg.streamWriteTimeout},
		metrics: m,
		logger:  logger,
		calls:   newAdmission(cfg.maxInFlight, time.Second, m.registry),
		streams: newStreamAdmission(cfg.maxStreams, cfg.maxStreamsClient, cfg.trustedProxy, m.registry),
		drain:   &drainState{},
	}
}

// routes is the route table: every path the API port serves, with its chain.
func (g *gateway) routes() []route {
	check := link{"checkRequest", checkRequest}
	normalize := link{"normalizeRequest", normalizeRequest}
	deadline := link{"deadline", g.deadline(g.cfg.requestTimeout)}
	unary := []link{check, {"readBody", g.readBody}, normalize, deadline, {"admission", g.calls.limit},
		{"conditionalGet", conditionalGet}}
	probe := []link{check, deadline} // probes are never shed or queued
	// Uploads stream their body (no readBody, their own size limit) under their own deadline; the
	// server's render pool sheds them (503), not the gateway's call slots, which they would hold
	// for as long as the body takes to arrive.
	upload := []link{{"checkHeaders", checkHeaders}, normalize, {"deadline", g.deadline(g.cfg.uploadTimeout)}}
	stream := []link{check, normalize, {"streamAdmission", g.streams.limit}, {"deadline", g.deadline(0)}}
	table := []route{
		{"GET " + livenessPath, livenessPath, nil, http.HandlerFunc(liveness)},
		{"GET " + readinessPath, readinessPath, append([]link{{"refuseWhileDraining", g.drain.refuseWhileDraining}}, probe...), g.api},
		{"GET " + startupPath, startupPath, probe, g.api},
		{"GET /api/v1/openapi.json", "/api/v1/openapi.json", nil, http.HandlerFunc(serveOpenAPI)},
		{"GET " + apiDocsPath, apiDocsPath, nil, http.HandlerFunc(serveAPIDocs)},
		{"GET " + apiDocsPath + "/", apiDocsPath, nil, http.HandlerFunc(serveAPIDocs)},
		{"GET " + changeStreamPath, changeStreamPath, stream, g.watch},
		{"/api/v1/", "", unary, g.api},
		// Anything else: grpc-gateway's 404 in the API's error shape, admitted like any call.
		{"/", "", unary, g.api},
	}
	if g.uploads != nil {
		table = append(table,
			route{"POST " + roomTypeImagesPath, roomTypeImagesPath, upload, &imageUpload{mux: g.api, client: g.uploads}},
			route{"POST " + roomImagesPath, roomImagesPath, upload, &imageUpload{mux: g.api, client: g.uploads, room: true}})
	}
	if g.cdn != nil {
		table = append(table, route{"/cdn/", "/cdn/", nil, g.cdn})
	}
	return table
}

// handler serves the route table.
func (g *gateway) handler() http.Handler {
	return routeTable(g.routes(), func(label string) middleware { return observe(label, g.metrics, g.logger) })
}

func routeTable(routes []route, observed func(label string) middleware) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routes {
		h := rt.handler
		for i := len(rt.chain) - 1; i >= 0; i-- {
			h = rt.chain[i].wrap(h)
		}
		mux.Handle(rt.pattern, observed(rt.label)(h))
	}
	return mux
}

// adminHandler serves the admin port, apart from the API: GET /metrics (limits, pool use,
// watcher counts, the change-log position are for the monitoring system only) and the probes,
// which no API client can keep from answering by filling the API port's connections.
func (g *gateway) adminHandler(serverMetrics serverMetricsFunc) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { g.metrics.serve(w, r, serverMetrics) })
	api := g.handler()
	for probe, apiPath := range map[string]string{
		"/health/live": livenessPath, "/health/ready": readinessPath, "/health/startup": startupPath,
	} {
		mux.HandleFunc("GET "+probe, func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path, r.URL.RawPath = apiPath, ""
			api.ServeHTTP(w, r)
		})
	}
	return mux
}

// livenessPath is answered by the gateway process itself: a busy or restarting server must not
// get the gateway restarted too (readiness asks the server).
const livenessPath = "/api/v1/health/live"

// startupPath says whether the server has loaded its data (asked of the server).
const startupPath = "/api/v1/health/startup"

func liveness(w http.ResponseWriter, _ *http.Request) {
	body, _ := protoJSON.Marshal(&hotelv1.GetLivenessResponse{Status: hotelv1.HealthCheck_SERVING, Version: version})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDocument())
}

// checkRequest refuses what the generated handlers would answer 500 or mis-forward: a path or
// query that is not UTF-8, headers over their limits, a malformed X-Client-Id (checkHeaders), and
// a body announced as larger than the limit.
func checkRequest(next http.Handler) http.Handler {
	return checkHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			writeStatus(w, tooLarge())
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// checkHeaders is checkRequest without the JSON body limit: uploads have their own (uploads.go).
func checkHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := invalidUTF8(r); st != nil {
			writeStatus(w, st)
			return
		}
		if st := headerTooLarge(r); st != nil {
			writeStatusCode(w, st, http.StatusRequestHeaderFieldsTooLarge)
			return
		}
		if st := invalidClientID(r); st != nil {
			writeStatus(w, st)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normalizeRequest rewrites date-times and unprefixed enum values into what the generated
// handlers parse, or refuses the request naming the field (timestamps.go).
func normalizeRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := normalizeTimestamps(r); st != nil {
			writeStatus(w, st)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads the whole (bounded) body before the request is admitted, within bodyTimeout: a
// client sending its body slowly holds a connection, never an admission slot (docs/operations.md,
// "Slow clients").
func (g *gateway) readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			control := http.NewResponseController(w)
			_ = control.SetReadDeadline(time.Now().Add(g.cfg.bodyTimeout))
			g.bodies.Inc()
			st, code := readJSONBody(w, r)
			g.bodies.Dec()
			// No deadline while the call runs: one passing would cancel the request's context.
			_ = control.SetReadDeadline(time.Time{})
			if st != nil {
				writeStatusCode(w, st, code)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
