package telemetry

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // registers the profiles on http.DefaultServeMux, which serves nothing else
)

// ServePprof serves Go's profiles (CPU, heap, allocations, goroutines) on a listener of their
// own, for profiling under load (docs/performance.md, "Gateway CPU"). Off unless
// GATEWAY_PPROF_ADDR is set, and loopback only: the profiles show request data and cost CPU.
func ServePprof(addr string, logger *slog.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%s is not a loopback address", addr)
	}
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	logger.Info("pprof listening", "address", listener.Addr().String())
	go func() { _ = http.Serve(listener, nil) }()
	return nil
}
