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
	exitIf := func(err error, what string, args ...any) {
		if err != nil {
			logger.Error(what, append(args, "error", err)...)
			os.Exit(1)
		}
	}
	// Lines from the standard library (net/http's server errors) and gRPC take the same shape.
	slog.SetDefault(logger)
	grpclog.SetLoggerV2(telemetry.NewGRPCLogger(logger))
	if cfg.PprofAddr != "" {
		exitIf(telemetry.ServePprof(cfg.PprofAddr, logger), "cannot serve pprof", "address", cfg.PprofAddr)
	}
	traces, err := telemetry.SetupTracing(context.Background(), os.Getenv)
	exitIf(err, "invalid tracing configuration")

	// Unary calls have one connection to themselves, change streams their own: no number of
	// watchers fills the one calls travel on. Each connects lazily and reconnects by itself.
	dial := func() *grpc.ClientConn {
		conn, err := grpc.NewClient(cfg.Backend, grpc.WithTransportCredentials(insecure.NewCredentials()),
			telemetry.GRPCClientTracing())
		exitIf(err, "invalid gRPC server address", "address", cfg.Backend)
		return conn
	}
	conn := dial()
	var watchers changestream.Clients
	for range cfg.StreamConnections {
		watchers = append(watchers, hotelv1.NewChangeServiceClient(dial()))
	}
	mux := httpapi.NewServeMux()
	for _, service := range httpapi.Services {
		exitIf(service.Register(context.Background(), mux, conn), "registering handlers", "service", service.Name)
	}
	g := httpapi.New(cfg, mux, watchers, logger)
	g.Uploads = hotelv1.NewImageServiceClient(conn)
	g.Metrics.Registry.MustRegister(traces.Metrics...)
	if cfg.CdnDir != "" {
		g.CDN, err = cdn.NewOrigin(cfg.CdnDir)
		exitIf(err, "cannot serve the CDN origin")
	}
	metrics := hotelv1.NewMetricsServiceClient(conn)
	admin := &http.Server{
		Handler: g.AdminHandler(func(ctx context.Context) (string, error) {
			resp, err := metrics.GetMetrics(ctx, &hotelv1.GetMetricsRequest{})
			return resp.GetPrometheusText(), err
		}),
		ReadHeaderTimeout: 5 * time.Second,
		WriteTimeout:      15 * time.Second,
	}
	server := overload.NewHTTPServer(g.Handler(), cfg.MaxRequestTimeout)

	// Go never sets SO_REUSEPORT, so a second gateway on a taken address fails here instead of
	// sharing the port with the first. The API line comes first (scripts read the first line).
	adminListener, err := net.Listen("tcp", cfg.MetricsListen)
	exitIf(err, "cannot listen", "address", cfg.MetricsListen)
	listener, err := net.Listen("tcp", cfg.Listen)
	exitIf(err, "cannot listen", "address", cfg.Listen)
	fmt.Printf("hotel-gateway listening on http://%s\n", listener.Addr())
	fmt.Printf("hotel-gateway metrics on http://%s/metrics (probes: /health/live, /health/ready, /health/startup)\n",
		adminListener.Addr())
	logger.Info("listening", "address", listener.Addr().String(), "metrics_address", adminListener.Addr().String(),
		"grpc_server", cfg.Backend, "version", telemetry.Version, "trace_export", telemetry.ExportEndpoint(os.Getenv))
	limited := overload.LimitConnections(listener, cfg.MaxConnections, cfg.MaxConnectionsClient, cfg.TrustedProxy,
		g.Metrics.Registry)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 2)
	go func() { served <- server.Serve(limited) }()
	go func() { served <- admin.Serve(adminListener) }()
	select {
	case err := <-served:
		exitIf(err, "server stopped")
	case <-signals:
	}

	// Graceful termination (docs/operations.md#rolling-deploys): not ready at once, still serving
	// for the delay (load balancers take a second or more to stop sending), keep-alive
	// connections closed after each response so clients reconnect elsewhere; then stop accepting
	// and let in-flight requests finish.
	logger.Info("shutting down", "delay_ms", cfg.ShutdownDelay.Milliseconds())
	g.StartDraining()
	server.SetKeepAlivesEnabled(false)
	select {
	case <-time.After(cfg.ShutdownDelay):
	case <-signals:
		logger.Info("second signal: stopping now")
	}
	logger.Info("stopping: no new requests, in-flight ones finish")
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	_ = admin.Close()
	if err := server.Shutdown(ctx); !errors.Is(err, http.ErrServerClosed) {
		exitIf(err, "shutdown incomplete")
	}
	if err := traces.Flush(ctx); err != nil {
		logger.Warn("traces not flushed", "error", err)
	}
	logger.Info("stopped")
}
