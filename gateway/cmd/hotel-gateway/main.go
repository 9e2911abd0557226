// Command hotel-gateway serves the Hotel Data Service's REST/JSON API under /api/v1 by
// translating each request into a call to the C++ gRPC server, with the handlers grpc-gateway
// generates from proto/hotel/v1 and its http.yaml (docs/architecture.md, "The gateway").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/grpclog"

	hotelv1 "hotel/gateway/gen/hotel/v1"
	"hotel/gateway/internal/cdn"
	"hotel/gateway/internal/changestream"
	"hotel/gateway/internal/config"
	"hotel/gateway/internal/httpapi"
	"hotel/gateway/internal/overload"
	"hotel/gateway/internal/telemetry"
)

func main() {
	// The release, CMakeLists.txt's project() version, set by scripts/build-gateway.sh.
	if slices.Contains(os.Args[1:], "--version") || slices.Contains(os.Args[1:], "-version") {
		fmt.Println("hotel-gateway", telemetry.Version)
		return
	}
	cfg, err := config.Load(os.Args[1:], os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Println(err)
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hotel-gateway: invalid configuration:\n%v\n", err)
		os.Exit(2)
	}
	logger := slog.New(telemetry.NewLogHandler(os.Stderr, slog.LevelInfo))
	// Lines from the standard library (net/http's server errors) and gRPC take the same shape.
	slog.SetDefault(logger)
	grpclog.SetLoggerV2(telemetry.NewGRPCLogger(logger))
	if err := run(context.Background(), cfg, logger); err != nil {
		logger.Error("hotel-gateway stopped", "error", err)
		os.Exit(1)
	}
}

// run serves until a signal, then drains.
func run(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	if cfg.PprofAddr != "" {
		if err := telemetry.ServePprof(cfg.PprofAddr, logger); err != nil {
			return fmt.Errorf("cannot serve pprof on %s: %w", cfg.PprofAddr, err)
		}
	}
	traces, err := telemetry.SetupTracing(ctx, os.Getenv)
	if err != nil {
		return fmt.Errorf("invalid tracing configuration: %w", err)
	}
	g, metrics, err := newGateway(ctx, cfg, logger)
	if err != nil {
		return err
	}
	g.Metrics.Registry.MustRegister(traces.Metrics...)
	s, err := listen(cfg, g, metrics, logger)
	if err != nil {
		return err
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 2)
	go func() { served <- s.api.Serve(s.apiListener) }()
	go func() { served <- s.admin.Serve(s.adminListener) }()
	select {
	case err := <-served:
		return fmt.Errorf("server stopped: %w", err)
	case <-signals:
	}
	err = drain(cfg, g, s, signals, logger)
	if err := traces.Flush(ctx); err != nil {
		logger.Warn("traces not flushed", "error", err)
	}
	logger.Info("stopped")
	return err
}

// newGateway dials the server and registers the generated handlers. Unary calls have one
// connection to themselves, change streams their own: no number of watchers fills the one calls
// travel on. Each connects lazily and reconnects by itself.
func newGateway(ctx context.Context, cfg config.Config, logger *slog.Logger) (*httpapi.Gateway, hotelv1.MetricsServiceClient, error) {
	dial := func() (*grpc.ClientConn, error) {
		conn, err := grpc.NewClient(cfg.Backend, grpc.WithTransportCredentials(insecure.NewCredentials()),
			telemetry.GRPCClientTracing())
		if err != nil {
			return nil, fmt.Errorf("invalid gRPC server address %s: %w", cfg.Backend, err)
		}
		return conn, nil
	}
	conn, err := dial()
	if err != nil {
		return nil, nil, err
	}
	var watchers changestream.Clients
	for range cfg.StreamConnections {
		stream, err := dial()
		if err != nil {
			return nil, nil, err
		}
		watchers = append(watchers, hotelv1.NewChangeServiceClient(stream))
	}
	mux := httpapi.NewServeMux()
	for _, service := range httpapi.Services {
		if err := service.Register(ctx, mux, conn); err != nil {
			return nil, nil, fmt.Errorf("registering the handlers of %s: %w", service.Name, err)
		}
	}
	g := httpapi.New(cfg, mux, watchers, logger)
	g.Uploads = hotelv1.NewImageServiceClient(conn)
	if cfg.CdnDir != "" {
		if g.CDN, err = cdn.NewOrigin(cfg.CdnDir); err != nil {
			return nil, nil, fmt.Errorf("cannot serve the CDN origin: %w", err)
		}
	}
	return g, hotelv1.NewMetricsServiceClient(conn), nil
}

// servers are the API's server and the admin port's, each with its listener.
type servers struct {
	api, admin                 *http.Server
	apiListener, adminListener net.Listener
}

// listen opens both ports. Go never sets SO_REUSEPORT, so a second gateway on a taken address
// fails here instead of sharing the port with the first. The API line comes first (scripts read
// the first line).
func listen(cfg config.Config, g *httpapi.Gateway, metrics hotelv1.MetricsServiceClient, logger *slog.Logger) (*servers, error) {
	adminListener, err := net.Listen("tcp", cfg.MetricsListen)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", cfg.MetricsListen, err)
	}
	listener, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", cfg.Listen, err)
	}
	fmt.Printf("hotel-gateway listening on http://%s\n", listener.Addr())
	fmt.Printf("hotel-gateway metrics on http://%s/metrics (probes: /health/live, /health/ready, /health/startup)\n",
		adminListener.Addr())
	logger.Info("listening", "address", listener.Addr().String(), "metrics_address", adminListener.Addr().String(),
		"grpc_server", cfg.Backend, "version", telemetry.Version, "trace_export", telemetry.ExportEndpoint(os.Getenv))
	admin := &http.Server{
		Handler: g.AdminHandler(func(ctx context.Context) (string, error) {
			resp, err := metrics.GetMetrics(ctx, &hotelv1.GetMetricsRequest{})
			return resp.GetPrometheusText(), err
		}),
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      15 * time.Second,
	}
	return &servers{
		api:   overload.NewHTTPServer(g.Handler(), cfg.MaxRequestTimeout),
		admin: admin,
		apiListener: overload.LimitConnections(listener, cfg.MaxConnections, cfg.MaxConnectionsClient, cfg.TrustedProxy,
			g.Metrics.Registry),
		adminListener: adminListener,
	}, nil
}

// drain is graceful termination (docs/operations.md#rolling-deploys): not ready at once, still
// serving for the delay (load balancers take a second or more to stop sending), keep-alive
// connections closed after each response so clients reconnect elsewhere; then stop accepting
// and let in-flight requests finish. A second signal cuts the delay short.
func drain(cfg config.Config, g *httpapi.Gateway, s *servers, signals <-chan os.Signal, logger *slog.Logger) error {
	logger.Info("shutting down", "delay_ms", cfg.ShutdownDelay.Milliseconds())
	g.StartDraining()
	s.api.SetKeepAlivesEnabled(false)
	select {
	case <-time.After(cfg.ShutdownDelay):
	case <-signals:
		logger.Info("second signal: stopping now")
	}
	logger.Info("stopping: no new requests, in-flight ones finish")
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	_ = s.admin.Close()
	if err := s.api.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown incomplete: %w", err)
	}
	return nil
}
