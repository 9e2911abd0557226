// Package config reads the gateway's settings from flags over environment variables.
package config

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"hotel/gateway/internal/telemetry"
)

// Config is every setting of the gateway, parsed and checked before any port opens: a value that
// does not parse or is out of range is an error naming the flag and its environment variable,
// never a silent fallback to the default (docs/operations.md, "Configure").
type Config struct {
	Listen, MetricsListen, Backend string
	RequestTimeout                 time.Duration // deadline of a call whose client sets none
	MaxRequestTimeout              time.Duration // Grpc-Timeout is clamped to it
	BodyTimeout                    time.Duration // the whole request body must arrive within it
	UploadTimeout                  time.Duration // deadline of an image upload whose client sets none
	MinInFlight, MaxInFlight       int           // the adaptive in-flight limit's floor and ceiling
	QueueMaxWait                   time.Duration // the longest a request waits for a slot while the queue stands
	MaxStreams, MaxStreamsClient   int
	StreamConnections              int
	StreamWriteTimeout             time.Duration
	ShutdownDelay, ShutdownTimeout time.Duration
	MaxConnections                 int
	MaxConnectionsClient           int
	TrustedProxy                   string // IP of a proxy whose X-Forwarded-For names the client ("": none)
	AccessLog                      string // all, sampled, errors or off
	CdnDir, PprofAddr              string
}

// settings binds flags whose defaults come from environment variables, remembering values
// that do not parse and the range each setting must be in.
type settings struct {
	fs     *flag.FlagSet
	getenv func(string) string
	errs   []error
	checks []func() error
}

func (s *settings) str(p *string, name, env, def, usage string) {
	s.fs.StringVar(p, name, cmp.Or(s.getenv(env), def), usage+" (env "+env+")")
}

func (s *settings) duration(p *time.Duration, name, env string, def, min time.Duration, usage string) {
	s.fs.DurationVar(p, name, bounded(s, p, name, env, def, min, time.ParseDuration), usage+" (env "+env+")")
}

func (s *settings) count(p *int, name, env string, def, min int, usage string) {
	s.fs.IntVar(p, name, bounded(s, p, name, env, def, min, strconv.Atoi), usage+" (env "+env+")")
}

// bounded is env's value (parsed by parse), else def; after the flags, *p is checked to be at
// least min.
func bounded[T int | time.Duration](s *settings, p *T, name, env string, def, min T, parse func(string) (T, error)) T {
	s.checks = append(s.checks, func() error {
		if *p < min {
			return fmt.Errorf("--%s (env %s) is %v: it must be at least %v", name, env, *p, min)
		}
		return nil
	})
	v := s.getenv(env)
	if v == "" {
		return def
	}
	value, err := parse(v)
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("%s=%q: %v", env, v, err))
		return def
	}
	return value
}

// Load reads the flags in args over the environment (getenv) and checks every value.
func Load(args []string, getenv func(string) string) (Config, error) {
	var c Config
	s := &settings{fs: flag.NewFlagSet("hotel-gateway", flag.ContinueOnError), getenv: getenv}
	s.fs.SetOutput(io.Discard)
	s.str(&c.Listen, "listen", "HTTP_LISTEN", "127.0.0.1:8080", "API listen address (port 0: any free port)")
	s.str(&c.MetricsListen, "metrics-listen", "GATEWAY_METRICS_LISTEN", "127.0.0.1:9464", "admin listen address, apart from the API: GET /metrics and the probes /health/live, /health/ready, /health/startup (port 0: any free port)")
	s.str(&c.Backend, "grpc-server", "GRPC_SERVER", "127.0.0.1:50051", "address of hotel-server")
	s.duration(&c.RequestTimeout, "request-timeout", "REQUEST_TIMEOUT", 10*time.Second, time.Millisecond, "gRPC deadline of a request when the client sets none")
	s.duration(&c.MaxRequestTimeout, "max-request-timeout", "GATEWAY_MAX_REQUEST_TIMEOUT", 60*time.Second, time.Millisecond, "longest deadline a client may ask for in Grpc-Timeout; longer ones are clamped to it")
	s.duration(&c.UploadTimeout, "upload-timeout", "GATEWAY_UPLOAD_TIMEOUT", 2*time.Minute, time.Millisecond, "deadline of an image upload (multipart POST .../images, body included) when the client sets none")
	s.duration(&c.BodyTimeout, "body-timeout", "GATEWAY_BODY_TIMEOUT", 5*time.Second, time.Millisecond, "time a request body (at most 1 MiB) has to arrive, before admission; 408 after it")
	s.count(&c.MaxInFlight, "max-in-flight", "GATEWAY_MAX_IN_FLIGHT", 64, 0, "the ceiling of the requests the gateway has in flight to the server at once (the limit adapts below it to the server's latency); more wait in line, and get 503 with Retry-After at once when they could not be served within their deadline (0: every call refused, a replica that only sheds)")
	s.count(&c.MinInFlight, "min-in-flight", "GATEWAY_MIN_IN_FLIGHT", 4, 0, "the floor of the adaptive in-flight limit")
	s.duration(&c.QueueMaxWait, "queue-max-wait", "GATEWAY_QUEUE_MAX_WAIT", 400*time.Millisecond, time.Millisecond, "while the queue for in-flight slots stands (does not drain), the longest a request may wait in it; one that would wait longer is refused at once (503), deadline sent or not")
	s.count(&c.MaxStreams, "max-streams", "GATEWAY_MAX_STREAMS", 1000, 1, "the most change streams (GET /api/v1/changes/stream) the gateway carries at once; beyond it 429")
	s.count(&c.MaxStreamsClient, "max-streams-per-client", "GATEWAY_MAX_STREAMS_PER_CLIENT", 100, 1, "the most change streams one client may hold; beyond it 429")
	s.count(&c.StreamConnections, "stream-connections", "GATEWAY_STREAM_CONNECTIONS", 2, 1, "gRPC connections to the server for change streams, apart from the one for calls")
	s.duration(&c.StreamWriteTimeout, "stream-write-timeout", "GATEWAY_STREAM_WRITE_TIMEOUT", 10*time.Second, time.Millisecond, "a change stream whose client does not take a message within this is ended")
	s.duration(&c.ShutdownDelay, "shutdown-delay", "GATEWAY_SHUTDOWN_DELAY", 5*time.Second, 0, "on SIGTERM, time the gateway keeps serving while /api/v1/health answers 503, so load balancers stop sending first (a second signal cuts it short)")
	s.duration(&c.ShutdownTimeout, "shutdown-timeout", "SHUTDOWN_TIMEOUT", 15*time.Second, time.Millisecond, "after the delay, time in-flight requests get to finish")
	s.count(&c.MaxConnections, "max-connections", "GATEWAY_MAX_CONNECTIONS", 1024, 0, "the most client connections open at once; more are closed at once (0: no limit)")
	s.count(&c.MaxConnectionsClient, "max-connections-per-client", "GATEWAY_MAX_CONNECTIONS_PER_CLIENT", 256, 0, "the most connections one client (remote IP) holds at once; more are closed at once (0: no limit)")
	s.str(&c.TrustedProxy, "trusted-proxy", "GATEWAY_TRUSTED_PROXY", "", "IP of a proxy in front of the gateway: its connections count only against --max-connections, and its X-Forwarded-For names the client")
	s.str(&c.AccessLog, "access-log", "GATEWAY_ACCESS_LOG", "sampled", "which requests get an access line: all (refusals are counted, not logged), sampled (errors, answers of 100 ms or more, one in 100 of the rest), errors (5xx), off")
	s.str(&c.CdnDir, "cdn-dir", "CDN_ORIGIN_DIR", "", "serve this image origin directory under /cdn/ (local runs only)")
	s.str(&c.PprofAddr, "pprof", "GATEWAY_PPROF_ADDR", "", "serve Go's pprof profiles on this loopback address (off by default)")
	if err := s.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			var usage strings.Builder
			s.fs.SetOutput(&usage)
			s.fs.PrintDefaults()
			return c, fmt.Errorf("%w: hotel-gateway's settings (docs/configuration.md; --version prints the release):\n%s", err, usage.String())
		}
		return c, err
	}
	if s.fs.NArg() > 0 {
		s.errs = append(s.errs, fmt.Errorf("unexpected arguments: %v", s.fs.Args()))
	}
	for _, check := range s.checks {
		s.errs = append(s.errs, check()) // errors.Join leaves out the nil ones
	}
	s.errs = append(s.errs, c.check()...)
	return c, errors.Join(s.errs...)
}

// check is what no single setting can say alone.
func (c *Config) check() []error {
	var errs []error
	if c.TrustedProxy != "" && net.ParseIP(c.TrustedProxy) == nil {
		errs = append(errs, fmt.Errorf("--trusted-proxy (env GATEWAY_TRUSTED_PROXY) is %q: it must be an IP address", c.TrustedProxy))
	}
	if !slices.Contains(telemetry.AccessLogModes, c.AccessLog) {
		errs = append(errs, fmt.Errorf("--access-log (env GATEWAY_ACCESS_LOG) is %q: it must be all, sampled, errors or off", c.AccessLog))
	}
	if c.MaxRequestTimeout < c.RequestTimeout {
		errs = append(errs, fmt.Errorf("--max-request-timeout %v is below --request-timeout %v", c.MaxRequestTimeout, c.RequestTimeout))
	}
	if c.MinInFlight > c.MaxInFlight {
		errs = append(errs, fmt.Errorf("--min-in-flight %d is above --max-in-flight %d", c.MinInFlight, c.MaxInFlight))
	}
	if c.MaxStreamsClient > c.MaxStreams {
		errs = append(errs, fmt.Errorf("--max-streams-per-client %d is above --max-streams %d", c.MaxStreamsClient, c.MaxStreams))
	}
	for _, a := range []struct{ name, value string }{{"listen", c.Listen}, {"metrics-listen", c.MetricsListen}} {
		if _, _, err := net.SplitHostPort(a.value); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %v", a.name, a.value, err))
		}
	}
	return errs
}
