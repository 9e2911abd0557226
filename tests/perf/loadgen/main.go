// Command loadgen drives a fixed number of concurrent callers at a gRPC method or an HTTP URL for
// a fixed time and prints one JSON line: requests, errors, throughput and latency percentiles.
//
// gRPC requests are sent as raw bytes (a codec that passes them through), so the tool needs no
// generated code and measures the server, not client-side marshalling. With -rate the callers
// share a fixed request rate (to read p99 at a chosen fraction of the peak); without it each
// caller sends its next request as soon as the last one answers.
//
//	loadgen -grpc 127.0.0.1:50051 -method /hotel.v1.RoomService/GetRoom -data 0a0442455231120331303 -c 8 -d 5s
//	loadgen -url http://127.0.0.1:8080/api/v1/rooms/101?property_id=BER1 -c 8 -d 5s
//	loadgen -url http://127.0.0.1:8080/api/v1/issues -body '{"request_id":"r-{seq}",...}' -c 8 -d 5s
//	loadgen -open -rate 3000 -timeout 1s -url http://127.0.0.1:8080/api/v1/rooms?floor=2 -d 5s   (open loop, openloop.go)
//	loadgen -open -rate 200 -burst-rate 2400 -burst-every 1s -burst-for 200ms -laddrs 127.0.0.20-27 -keep-deadline ...
//	loadgen -grpc 127.0.0.1:50051 -watch 100 -data 1001 -d 10s   (WatchChanges delivery latency, watch.go)
package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// rawCodec sends and receives protobuf messages as the bytes they already are.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append((*(v.(*[]byte)))[:0], data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

type result struct {
	Target      string  `json:"target"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate,omitempty"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	Errors5xx   int     `json:"errors_5xx"`
	FirstError  string  `json:"first_error,omitempty"`
	Seconds     float64 `json:"seconds"`
	RPS         float64 `json:"rps"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
}

// call sends one request; seq numbers requests so bodies can be made unique.
type call func(ctx context.Context, seq int64) error

func main() {
	if os.Getenv("GOGC") == "" {
		// Fewer collections of its own: a collection while requests are in flight shows in the
		// latencies it measures and takes cores from the stack it loads (a heap of a few MB is
		// otherwise collected dozens of times a second).
		debug.SetGCPercent(400)
	}
	grpcAddr := flag.String("grpc", "", "gRPC server address (host:port)")
	method := flag.String("method", "", "full gRPC method name, /package.Service/Method")
	data := flag.String("data", "", "request message as hex-encoded protobuf bytes")
	conns := flag.Int("conns", 1, "gRPC connections shared round-robin by the callers")
	url := flag.String("url", "", "HTTP URL")
	httpMethod := flag.String("X", "", "HTTP method (default GET, or POST with -body)")
	body := flag.String("body", "", "HTTP request body; {seq} is replaced by the request's number")
	concurrency := flag.Int("c", 1, "concurrent callers")
	duration := flag.Duration("d", 5*time.Second, "measurement time")
	warmup := flag.Duration("warmup", time.Second, "time to run before measuring")
	rate := flag.Float64("rate", 0, "total requests per second (0: as fast as answers come)")
	timeout := flag.Duration("timeout", 5*time.Second, "deadline of each request")
	idsFile := flag.String("ids", "", "file of ids, one a line: {id} in -url and -body takes the next one, each once")
	watchers := flag.Int("watch", 0, "open this many WatchChanges streams (request: -data) and measure delivery latency for -d")
	maxConns := flag.Int("max-conns", 0, "with -open over HTTP: the most connections at once, as a client's pool has (0: no limit, a connection per waiting request)")
	open := flag.Bool("open", false, "open loop: -rate arrivals a second for -d whatever the answers, each with -timeout (openloop.go)")
	timeoutsFile := flag.String("timeouts-file", "", "with -open: write the {seq} of requests whose caller gave up here")
	latenciesFile := flag.String("latencies-file", "", "with -open: write the latency of each answered request here (µs, a line each), to pool several runs")
	laddrs := flag.String("laddrs", "", "client source addresses, a comma list of IPs or ranges (127.0.0.20-27): the open loop's HTTP callers "+
		"(a connection pool each, -max-conns shared out) and the gRPC connections (at least one each) take them in turn")
	keepDeadline := flag.Bool("keep-deadline", false, "callers still give up after -timeout but do not send their deadline "+
		"(no Grpc-Timeout header, no gRPC deadline), as many clients do")
	burstRate := flag.Float64("burst-rate", 0, "with -open: the arrival rate during bursts (-rate is the rate between them)")
	burstEvery := flag.Duration("burst-every", time.Second, "with -burst-rate: a burst starts this often")
	burstFor := flag.Duration("burst-for", 200*time.Millisecond, "with -burst-rate: each burst lasts this long")
	flag.Parse()
	sources, err := parseLaddrs(*laddrs)
	if err != nil {
		fail("bad -laddrs: %v", err)
	}
	if *burstRate > 0 && (*burstEvery <= 0 || *burstFor <= 0 || *burstFor > *burstEvery) {
		fail("-burst-every and -burst-for must be positive, -burst-for at most -burst-every")
	}
	callerContext := deadlineContext
	if *keepDeadline {
		callerContext = cancelOnlyContext
	}
	if *open {
		opts := openOptions{rate: *rate, burstRate: *burstRate, burstEvery: *burstEvery, burstFor: *burstFor,
			duration: *duration, timeout: *timeout, callerContext: callerContext,
			timeoutsFile: *timeoutsFile, latenciesFile: *latenciesFile}
		switch {
		case *grpcAddr != "" && *method != "":
			payload, err := hex.DecodeString(*data)
			if err != nil {
				fail("bad -data: %v", err)
			}
			printOpen(runOpen(openGRPCCaller(*grpcAddr, *method, payload, *conns, sources), opts), *method, sources, *keepDeadline)
		case *url != "":
			verb := httpVerb(*httpMethod, *body)
			printOpen(runOpen(openHTTPCaller(verb, *url, *body, *maxConns, sources), opts), verb+" "+*url, sources, *keepDeadline)
		default:
			fail("give -grpc with -method, or -url")
		}
	}
	if *watchers > 0 {
		payload, err := hex.DecodeString(*data)
		if err != nil {
			fail("bad -data: %v", err)
		}
		watchMethod := *method
		if watchMethod == "" {
			watchMethod = "/hotel.v1.ChangeService/WatchChanges"
		}
		runWatch(*grpcAddr, watchMethod, *watchers, payload, *duration)
	}
	var ids []string
	if *idsFile != "" {
		raw, err := os.ReadFile(*idsFile)
		if err != nil {
			fail("read -ids: %v", err)
		}
		ids = strings.Fields(string(raw))
	}

	var send call
	var target string
	switch {
	case *grpcAddr != "" && *method != "":
		payload, err := hex.DecodeString(*data)
		if err != nil {
			fail("bad -data: %v", err)
		}
		send, target = grpcCaller(*grpcAddr, *method, payload, *conns, sources), *method
	case *url != "":
		verb := httpVerb(*httpMethod, *body)
		send, target = httpCaller(verb, *url, *body, *concurrency, ids), verb+" "+*url
	default:
		fail("give -grpc with -method, or -url")
	}
	res := run(send, *concurrency, *warmup, *duration, *rate, *timeout, callerContext)
	res.Target = target
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}

// httpVerb is -X, or GET without a body and POST with one.
func httpVerb(method, body string) string {
	switch {
	case method != "":
		return method
	case body != "":
		return http.MethodPost
	default:
		return http.MethodGet
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "loadgen: "+format+"\n", args...)
	os.Exit(2)
}

// parseLaddrs reads -laddrs: IPs and ranges of the last byte (127.0.0.20-27), comma-separated.
func parseLaddrs(text string) ([]net.IP, error) {
	var ips []net.IP
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		first, last, isRange := strings.Cut(item, "-")
		ip := net.ParseIP(first).To4()
		if ip == nil {
			return nil, fmt.Errorf("%q is not an IPv4 address", first)
		}
		end := int(ip[3])
		if isRange {
			n, err := strconv.Atoi(last)
			if err != nil || n < end || n > 255 {
				return nil, fmt.Errorf("%q: the range's end must be a last byte from %d to 255", item, end)
			}
			end = n
		}
		for b := int(ip[3]); b <= end; b++ {
			ips = append(ips, net.IPv4(ip[0], ip[1], ip[2], byte(b)))
		}
	}
	return ips, nil
}

// dialerFrom dials from source (any address when nil), as a client on that host would.
func dialerFrom(source net.IP) *net.Dialer {
	if source == nil {
		return &net.Dialer{}
	}
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: source}}
}

// deadlineContext gives a call its caller's deadline, which gRPC and the gateway see.
func deadlineContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), timeout)
}

// cancelOnlyContext is a caller that gives up after timeout without saying so: no deadline on
// the context, so neither a grpc-timeout nor a Grpc-Timeout header is sent.
func cancelOnlyContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(timeout, cancel)
	return ctx, func() { timer.Stop(); cancel() }
}

// grpcCaller shares conns connections round-robin; with sources, at least one from each source
// address, the connections taking the addresses in turn.
func grpcCaller(addr, method string, payload []byte, conns int, sources []net.IP) call {
	clients := make([]*grpc.ClientConn, max(conns, len(sources)))
	for i := range clients {
		var source net.IP
		if len(sources) > 0 {
			source = sources[i%len(sources)]
		}
		dialer := dialerFrom(source)
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})),
			grpc.WithContextDialer(func(ctx context.Context, target string) (net.Conn, error) {
				return dialer.DialContext(ctx, "tcp", target)
			}))
		if err != nil {
			fail("dial %s: %v", addr, err)
		}
		clients[i] = conn
	}
	var next atomic.Uint64
	return func(ctx context.Context, _ int64) error {
		conn := clients[next.Add(1)%uint64(len(clients))]
		req, reply := payload, []byte(nil)
		return conn.Invoke(ctx, method, &req, &reply)
	}
}

func httpCaller(verb, url, body string, concurrency int, ids []string) call {
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency,
	}}
	var nextID atomic.Int64
	return func(ctx context.Context, seq int64) error {
		target, text := url, body
		if ids != nil {
			n := nextID.Add(1) - 1
			if n >= int64(len(ids)) {
				return fmt.Errorf("-ids exhausted after %d requests", len(ids))
			}
			target, text = strings.ReplaceAll(target, "{id}", ids[n]), strings.ReplaceAll(text, "{id}", ids[n])
		}
		var reader io.Reader
		if text != "" {
			reader = strings.NewReader(strings.ReplaceAll(text, "{seq}", strconv.FormatInt(seq, 10)))
		}
		req, err := http.NewRequestWithContext(ctx, verb, target, reader)
		if err != nil {
			return err
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		_, err = io.Copy(&buf, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode >= 500 {
			return serverError{fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, buf.String())}
		}
		if resp.StatusCode >= 300 {
			return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, buf.String())
		}
		return nil
	}
}

// serverError marks a 5xx answer, counted apart from the other errors.
type serverError struct{ error }

// run drives send from concurrency callers; only requests started after warmup are counted.
func run(send call, concurrency int, warmup, duration time.Duration, rate float64, timeout time.Duration,
	callerContext func(time.Duration) (context.Context, context.CancelFunc)) result {
	start := time.Now()
	measureFrom, stopAt := start.Add(warmup), start.Add(warmup+duration)
	var tokens <-chan time.Time
	if rate > 0 {
		ticker := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer ticker.Stop()
		tokens = ticker.C
	}
	var seq atomic.Int64
	seq.Store(time.Now().UnixNano() / 1000) // unique across runs against one database
	type worker struct {
		latencies []time.Duration
		errors    int
		errors5xx int
		firstErr  string
	}
	workers := make([]worker, concurrency)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for {
				if tokens != nil {
					<-tokens
				}
				began := time.Now()
				if !began.Before(stopAt) {
					return
				}
				ctx, cancel := callerContext(timeout)
				err := send(ctx, seq.Add(1))
				cancel()
				if began.Before(measureFrom) {
					continue
				}
				if err != nil {
					w.errors++
					if _, ok := err.(serverError); ok {
						w.errors5xx++
					}
					if w.firstErr == "" {
						w.firstErr = err.Error()
					}
					continue
				}
				w.latencies = append(w.latencies, time.Since(began))
			}
		}(&workers[i])
	}
	wg.Wait()
	elapsed := time.Since(measureFrom)
	var all []time.Duration
	res := result{Concurrency: concurrency, Rate: rate, Seconds: elapsed.Seconds()}
	for _, w := range workers {
		all = append(all, w.latencies...)
		res.Errors += w.errors
		res.Errors5xx += w.errors5xx
		if res.FirstError == "" {
			res.FirstError = w.firstErr
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	res.Requests = len(all) + res.Errors
	res.RPS = float64(len(all)) / elapsed.Seconds()
	res.P50Ms, res.P99Ms = percentile(all, 0.50), percentile(all, 0.99)
	return res
}

func percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(q*float64(len(sorted)-1))].Microseconds()) / 1000
}
