package httpapi

import (
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"hotel/gateway"
	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/apierror"
	"hotel/gateway/internal/apijson"
	"hotel/gateway/internal/changestream"
	"hotel/gateway/internal/config"
	"hotel/gateway/internal/overload"
	"hotel/gateway/internal/telemetry"
	"hotel/gateway/internal/uploads"
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
// in logs and metrics, and the chain in front of its handler, outermost first; every route is
// observed (logged, measured, traced) before its chain. No label: grpc-gateway's mux names the
// matched proto pattern itself (telemetry.RouteRecorder), or _OTHER.
type route struct {
	pattern string
	label   string
	chain   []link
	handler http.Handler
}

// Gateway is the API's HTTP side: the route table and the admin port, built from the generated
// handlers (api) and the parts each route's chain takes.
type Gateway struct {
	cfg      config.Config
	api      *runtime.ServeMux // the generated handlers
	watch    http.Handler      // GET /api/v1/changes/stream
	Uploads  uploads.Client    // POST .../images; nil: no upload routes
	CDN      http.Handler      // nil: no /cdn/ route (production: a real CDN serves it)
	Metrics  *telemetry.Metrics
	observe  *telemetry.Observer
	calls    *overload.Admission       // in-flight calls
	streams  *overload.StreamAdmission // change streams, in total and per client
	draining atomic.Bool               // StartDraining
	bodies   prometheus.Gauge          // requests whose body is being read, before admission
}

// New builds the gateway's parts from cfg; watchers carry the change streams.
func New(cfg config.Config, api *runtime.ServeMux, watchers changestream.Client, logger *slog.Logger) *Gateway {
	m := telemetry.NewMetrics()
	return &Gateway{
		bodies: promauto.With(m.Registry).NewGauge(prometheus.GaugeOpts{
			Name: "hotel_gateway_request_bodies_reading",
			Help: "Requests whose body is still arriving (they hold no admission slot; GATEWAY_BODY_TIMEOUT ends them).",
		}),
		cfg:     cfg,
		api:     api,
		watch:   &changestream.Handler{Mux: api, Client: watchers, WriteTimeout: cfg.StreamWriteTimeout},
		Metrics: m,
		observe: &telemetry.Observer{Metrics: m, Logger: logger, AccessLog: cfg.AccessLog},
		calls:   overload.NewAdmission(cfg.MinInFlight, cfg.MaxInFlight, overload.QueuePolicyWithMaxWait(cfg.QueueMaxWait), time.Second, m.Registry),
		streams: overload.NewStreamAdmission(cfg.MaxStreams, cfg.MaxStreamsClient, cfg.TrustedProxy, m.Registry),
	}
}

// StartDraining makes the readiness probe answer 503 at once, without asking the server, while
// every other request is still served (SIGTERM: load balancers stop sending).
func (g *Gateway) StartDraining() { g.draining.Store(true) }

func (g *Gateway) whileDraining(*http.Request) *status.Status {
	if g.draining.Load() {
		return shuttingDown
	}
	return nil
}

var shuttingDown = apierror.New(codes.Unavailable, "SHUTTING_DOWN", "the gateway is shutting down; send new requests to another replica")

// routes is the route table: every path the API port serves, with its chain.
func (g *Gateway) routes() []route {
	check := link{"checkRequest", checkRequest}
	deadline := link{"deadline", g.deadline(g.cfg.RequestTimeout)}
	unary := []link{check, {"readBody", g.readBody}, deadline, {"admission", g.calls.Limit},
		{"conditionalGet", conditionalGet}}
	// Uploads stream their body (no readBody, their own size limit) under their own deadline; the
	// server's render pool sheds them (503), not the gateway's call slots, which they would hold
	// for as long as the body takes to arrive. They and the change stream are served by hand, so
	// the parameters their operations take are checked here (the generated handlers' in the mux).
	upload := func(path string) []link {
		return []link{{"checkHeaders", checkHeaders}, {"knownQuery", knownQuery("POST " + path)},
			{"deadline", g.deadline(g.cfg.UploadTimeout)}}
	}
	stream := []link{check, {"knownQuery", knownQuery("GET " + changestream.Path)}, {"streamAdmission", g.streams.Limit},
		{"deadline", g.deadline(0)}}
	table := append(g.probes(), []route{
		{"GET /api/v1/openapi.json", "/api/v1/openapi.json", nil, http.HandlerFunc(serveOpenAPI)},
		{"GET " + apiDocsPath, apiDocsPath, nil, http.HandlerFunc(serveAPIDocs)},
		{"GET " + apiDocsPath + "/", apiDocsPath, nil, http.HandlerFunc(serveAPIDocs)},
		{"GET " + changestream.Path, changestream.Path, stream, g.watch},
		{"/api/v1/", "", unary, g.api},
		// Anything else: grpc-gateway's 404 in the API's error shape, admitted like any call.
		{"/", "", unary, g.api},
	}...)
	if g.Uploads != nil {
		table = append(table,
			route{"POST " + uploads.RoomTypeImagesPath, uploads.RoomTypeImagesPath, upload(uploads.RoomTypeImagesPath),
				&uploads.Handler{Mux: g.api, Client: g.Uploads}},
			route{"POST " + uploads.RoomImagesPath, uploads.RoomImagesPath, upload(uploads.RoomImagesPath),
				&uploads.Handler{Mux: g.api, Client: g.Uploads, Room: true}})
	}
	if g.CDN != nil {
		table = append(table, route{"/cdn/", "/cdn/", nil, g.CDN})
	}
	return table
}

// probes are the routes of the three probes, which the admin port serves too.
func (g *Gateway) probes() []route {
	probe := []link{{"checkRequest", checkRequest}, {"deadline", g.deadline(g.cfg.RequestTimeout)}} // never shed or queued
	return []route{
		{"GET " + livenessPath, livenessPath, nil, http.HandlerFunc(liveness)},
		{"GET " + readinessPath, readinessPath, append([]link{{"refuseWhileDraining", refuseIf(g.whileDraining)}}, probe...), g.api},
		{"GET " + startupPath, startupPath, probe, g.api},
	}
}

// serve is rt's handler behind its chain, observed.
func (g *Gateway) serve(rt route) http.Handler {
	h := rt.handler
	for i := len(rt.chain) - 1; i >= 0; i-- {
		h = rt.chain[i].wrap(h)
	}
	return g.observe.Route(rt.label, h)
}

// Handler serves the route table.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range g.routes() {
		mux.Handle(rt.pattern, g.serve(rt))
	}
	return mux
}

// AdminHandler serves the admin port, apart from the API: GET /metrics, for the monitoring system
// only, and the probes, which no API client can keep from answering by filling the API port.
func (g *Gateway) AdminHandler(serverMetrics telemetry.ServerMetricsFunc) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { g.Metrics.Serve(w, r, serverMetrics) })
	adminPaths := map[string]string{livenessPath: "/health/live", readinessPath: "/health/ready", startupPath: "/health/startup"}
	for _, rt := range g.probes() {
		probe, apiPath := g.serve(rt), rt.label
		mux.HandleFunc("GET "+adminPaths[apiPath], func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path, r.URL.RawPath = apiPath, "" // the generated handlers route by the API's path
			probe.ServeHTTP(w, r)
		})
	}
	return mux
}

const (
	// livenessPath is answered by the gateway process itself: a busy or restarting server must
	// not get the gateway restarted too (readiness asks the server).
	livenessPath  = "/api/v1/health/live"
	readinessPath = "/api/v1/health"
	startupPath   = "/api/v1/health/startup" // whether the server has loaded its data
)

func liveness(w http.ResponseWriter, _ *http.Request) {
	body, _ := apijson.Options.Marshal(&hotelv1.GetLivenessResponse{Status: hotelv1.HealthCheck_SERVING, Version: telemetry.Version})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(gateway.OpenAPI)
}

// refuseIf is a middleware answering the first refusal of checks, or passing the request on.
func refuseIf(checks ...func(*http.Request) *status.Status) middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, check := range checks {
				if st := check(r); st != nil {
					apierror.Write(w, st)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

var (
	// checkHeaders refuses what the generated handlers would answer 500 or mis-forward: a path or
	// query that is not UTF-8, headers over their limits, a malformed X-Client-Id. checkRequest
	// also refuses a body announced as larger than the JSON limit (uploads have their own).
	checkHeaders = refuseIf(invalidUTF8, headerTooLarge, invalidClientID)
	checkRequest = refuseIf(invalidUTF8, headerTooLarge, invalidClientID, bodyTooLarge)
)

// readBody reads the whole (bounded) body before the request is admitted, within bodyTimeout: a
// client sending its body slowly holds a connection, never an admission slot (docs/operations.md,
// "Slow clients").
func (g *Gateway) readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			control := http.NewResponseController(w)
			_ = control.SetReadDeadline(time.Now().Add(g.cfg.BodyTimeout))
			g.bodies.Inc()
			st := readJSONBody(w, r)
			g.bodies.Dec()
			// No deadline while the call runs: one passing would cancel the request's context.
			_ = control.SetReadDeadline(time.Time{})
			if st != nil {
				apierror.Write(w, st)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
