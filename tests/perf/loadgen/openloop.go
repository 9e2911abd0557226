package main

// Open-loop load (-open): requests arrive at a fixed rate whatever the service does, each in its
// own goroutine with its own deadline, as they do from many independent callers. A closed loop
// (fixed callers, each waiting for its answer) slows down with the service and hides overload.
// With -burst-rate the arrivals come in bursts at that rate (-burst-for every -burst-every) and at
// -rate between them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// outcome of one open-loop request.
type outcome struct {
	seq     int64
	start   time.Duration // since the run began
	latency time.Duration
	lag     time.Duration // how late the generator sent it against its schedule
	class   string        // ok, refused (503 / UNAVAILABLE), refused-conn, timeout (the caller gave up), or the status
}

// refusedConn: the connection was closed or reset without an answer (a gateway closing a
// client's connections over its share says nothing).
const refusedConn = "refused-conn"

type openResult struct {
	Target     string         `json:"target"`
	Rate       float64        `json:"rate"`
	Seconds    float64        `json:"seconds"`
	Sent       int            `json:"sent"`
	Classes    map[string]int `json:"classes"`
	Goodput    float64        `json:"goodput"` // successful answers per second
	Success    float64        `json:"success"` // their share of the requests sent
	OkP50Ms    float64        `json:"ok_p50_ms"`
	OkP99Ms    float64        `json:"ok_p99_ms"`
	RefusedP50 float64        `json:"refused_p50_ms"`
	RefusedP99 float64        `json:"refused_p99_ms"`
	// Connections closed or reset without an answer (refused-conn): how long their callers waited.
	RefusedConnP99 float64 `json:"refused_conn_p99_ms"`
	BurstRate      float64 `json:"burst_rate,omitempty"`
	BurstEveryMs   float64 `json:"burst_every_ms,omitempty"`
	BurstForMs     float64 `json:"burst_for_ms,omitempty"`
	Sources        int     `json:"source_addresses"` // client source addresses (0: the system's choice)
	KeepDeadline   bool    `json:"keep_deadline"`    // callers did not send their deadline
	// The most calls waiting at once: over HTTP, the connections the client needed (up to -max-conns).
	PeakInFlight int64 `json:"peak_in_flight"`
	// ok p99 of each 250 ms of arrivals, to see how fast latency settles after a change of load.
	SeriesP99Ms []float64 `json:"series_p99_ms"`
	FirstError  string    `json:"first_error,omitempty"`
	// The generator's own health: how late it sent requests against its schedule (p99), and how
	// many calls it saw end more than overrunSlack after their own deadline. Either large means
	// the generator, sharing the cores, could not keep its schedule or its callers' deadlines:
	// the step measures the generator as much as the service.
	SendLagP99Ms float64 `json:"send_lag_p99_ms"`
	Overran      int     `json:"overran"`
}

// openCall sends one request and classifies its answer.
type openCall func(ctx context.Context, seq int64) string

type openOptions struct {
	rate, burstRate      float64 // arrivals a second; during bursts (0: no bursts)
	burstEvery, burstFor time.Duration
	duration, timeout    time.Duration
	// callerContext gives each call its caller's patience: a deadline it sends, or one it keeps.
	callerContext               func(time.Duration) (context.Context, context.CancelFunc)
	timeoutsFile, latenciesFile string
}

// schedule is when each request is due, from the start: at rate a second, and at burstRate
// during the first burstFor of every burstEvery.
func schedule(o openOptions) []time.Duration {
	var due []time.Duration
	for at := time.Duration(0); at < o.duration; {
		rate := o.rate
		if o.burstRate > 0 && at%o.burstEvery < o.burstFor {
			rate = o.burstRate
		}
		if rate <= 0 { // no arrivals until the next burst
			at = (at/o.burstEvery + 1) * o.burstEvery
			continue
		}
		due = append(due, at)
		at += time.Duration(float64(time.Second) / rate)
	}
	return due
}

// runOpen sends the requests of schedule(o), each with o.timeout, and waits for the last.
// The sequence numbers of requests whose caller gave up are written to timeoutsFile (if set), so
// that a harness can count the writes the service committed for them anyway; the latencies of the
// answered ones to latenciesFile (if set), so that a harness can take percentiles over several runs.
func runOpen(send openCall, o openOptions) openResult {
	duration, timeout := o.duration, o.timeout
	dues := schedule(o)
	total := len(dues)
	outcomes := make([]outcome, total)
	base := time.Now().UnixNano() / 1000 // unique across runs against one database
	var wg sync.WaitGroup
	var inFlight, peak atomic.Int64
	start := time.Now()
	for i := 0; i < total; {
		for now := time.Since(start); i < total && dues[i] <= now; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				began := time.Now()
				ctx, cancel := o.callerContext(timeout)
				raiseTo(&peak, inFlight.Add(1))
				class := send(ctx, base+int64(i))
				inFlight.Add(-1)
				cancel()
				outcomes[i] = outcome{seq: base + int64(i), start: began.Sub(start), latency: time.Since(began),
					lag: began.Sub(start) - dues[i], class: class}
			}(i)
		}
		time.Sleep(500 * time.Microsecond)
	}
	wg.Wait()
	res := openResult{Rate: o.rate, Seconds: duration.Seconds(), Sent: total, Classes: map[string]int{},
		PeakInFlight: peak.Load()}
	if o.burstRate > 0 {
		res.BurstRate, res.BurstEveryMs, res.BurstForMs = o.burstRate, ms(o.burstEvery), ms(o.burstFor)
	}
	var ok, refused, refusedConns, lags []time.Duration
	buckets := make([][]time.Duration, int(duration/(250*time.Millisecond))+1)
	var timedOut []string
	for _, o := range outcomes {
		res.Classes[o.class]++
		lags = append(lags, o.lag)
		if o.latency > timeout+overrunSlack {
			res.Overran++
		}
		switch o.class {
		case "ok":
			ok = append(ok, o.latency)
			if b := int(o.start / (250 * time.Millisecond)); b < len(buckets) {
				buckets[b] = append(buckets[b], o.latency)
			}
		case "refused":
			refused = append(refused, o.latency)
		case refusedConn:
			refusedConns = append(refusedConns, o.latency)
		case "timeout":
			timedOut = append(timedOut, strconv.FormatInt(o.seq, 10))
		default:
			if res.FirstError == "" {
				res.FirstError = o.class
			}
		}
	}
	res.Goodput = float64(len(ok)) / duration.Seconds()
	if total > 0 {
		res.Success = float64(len(ok)) / float64(total)
	}
	res.OkP50Ms, res.OkP99Ms = percentileMs(ok, 0.50), percentileMs(ok, 0.99)
	res.RefusedP50, res.RefusedP99 = percentileMs(refused, 0.50), percentileMs(refused, 0.99)
	res.RefusedConnP99 = percentileMs(refusedConns, 0.99)
	res.SendLagP99Ms = percentileMs(lags, 0.99)
	for _, b := range buckets {
		res.SeriesP99Ms = append(res.SeriesP99Ms, percentileMs(b, 0.99))
	}
	if latenciesFile := o.latenciesFile; latenciesFile != "" {
		var text strings.Builder
		for _, latency := range ok {
			text.WriteString(strconv.FormatInt(latency.Microseconds(), 10))
			text.WriteByte('\n')
		}
		if err := os.WriteFile(latenciesFile, []byte(text.String()), 0o644); err != nil {
			fail("write -latencies-file: %v", err)
		}
	}
	if timeoutsFile := o.timeoutsFile; timeoutsFile != "" {
		if err := os.WriteFile(timeoutsFile, []byte(strings.Join(timedOut, "\n")), 0o644); err != nil {
			fail("write -timeouts-file: %v", err)
		}
	}
	return res
}

// overrunSlack: a call that ends this much after its deadline was not watched by its caller in time.
const overrunSlack = 100 * time.Millisecond

// raiseTo makes peak at least n.
func raiseTo(peak *atomic.Int64, n int64) {
	for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentileMs(values []time.Duration, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
	return float64(values[int(p*float64(len(values)-1))].Microseconds()) / 1000
}

// openHTTPCaller calls url; maxConns > 0 bounds the connections as a client's pool does (a call
// then waits for one within its timeout), else every call without an idle connection dials one.
// With sources, each source address has a client (a pool) of its own, maxConns shared out among
// them, and the calls take them in turn.
func openHTTPCaller(verb, url, body string, maxConns int, sources []net.IP) openCall {
	if len(sources) == 0 {
		sources = []net.IP{nil}
	}
	clients := make([]*http.Client, len(sources))
	for i, source := range sources {
		perSource := maxConns / len(sources)
		if i < maxConns%len(sources) {
			perSource++
		}
		if maxConns > 0 && perSource == 0 {
			fail("-max-conns %d is fewer than the %d source addresses", maxConns, len(sources))
		}
		clients[i] = &http.Client{Transport: &http.Transport{MaxIdleConns: 20000, MaxIdleConnsPerHost: 20000,
			MaxConnsPerHost: perSource, DialContext: dialerFrom(source).DialContext}}
	}
	return func(ctx context.Context, seq int64) string {
		client := clients[seq%int64(len(clients))]
		var reader io.Reader
		if body != "" {
			reader = strings.NewReader(strings.ReplaceAll(body, "{seq}", strconv.FormatInt(seq, 10)))
		}
		req, err := http.NewRequestWithContext(ctx, verb, strings.ReplaceAll(url, "{seq}", strconv.FormatInt(seq, 10)), reader)
		if err != nil {
			return err.Error()
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		// The caller says how long it waits, as docs/deadlines-and-retries.md asks of clients: the
		// gateway then refuses at once what it could not serve in time, instead of serving it late.
		if deadline, ok := ctx.Deadline(); ok {
			req.Header.Set("Grpc-Timeout", strconv.FormatInt(time.Until(deadline).Milliseconds(), 10)+"m")
		}
		resp, err := client.Do(req)
		if err != nil {
			switch {
			case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
				return "timeout"
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
				errors.Is(err, syscall.EPIPE) || strings.Contains(err.Error(), "server closed idle connection"):
				return refusedConn
			}
			return "error: " + err.Error()
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch {
		case err != nil && ctx.Err() != nil:
			return "timeout"
		case resp.StatusCode < 300:
			return "ok"
		case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
			return "refused"
		default:
			return fmt.Sprintf("HTTP %d", resp.StatusCode)
		}
	}
}

func openGRPCCaller(addr, method string, payload []byte, conns int, sources []net.IP) openCall {
	invoke := grpcCaller(addr, method, payload, conns, sources)
	return func(ctx context.Context, seq int64) string {
		err := invoke(ctx, seq)
		if err == nil {
			return "ok"
		}
		if ctx.Err() != nil {
			return "timeout"
		}
		st := status.Convert(err)
		if st.Code() == codes.Unavailable && strings.Contains(st.Message(), "overloaded") {
			return "refused"
		}
		return st.Code().String()
	}
}

func printOpen(res openResult, target string, sources []net.IP, keepDeadline bool) {
	res.Target, res.Sources, res.KeepDeadline = target, len(sources), keepDeadline
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	os.Exit(0)
}
