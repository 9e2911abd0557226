package main

// Open-loop load (-open): requests arrive at a fixed rate whatever the service does, each in its
// own goroutine with its own deadline, as they do from many independent callers. A closed loop
// (fixed callers, each waiting for its answer) slows down with the service and hides overload.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	class   string        // ok, refused (503 / UNAVAILABLE), timeout (the caller gave up), or the status
}

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

// runOpen sends rate requests a second for duration, each with timeout, and waits for the last.
// The sequence numbers of requests whose caller gave up are written to timeoutsFile (if set), so
// that a harness can count the writes the service committed for them anyway; the latencies of the
// answered ones to latenciesFile (if set), so that a harness can take percentiles over several runs.
func runOpen(send openCall, rate float64, duration, timeout time.Duration, timeoutsFile, latenciesFile string) openResult {
	total := int(rate * duration.Seconds())
	outcomes := make([]outcome, total)
	base := time.Now().UnixNano() / 1000 // unique across runs against one database
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < total; {
		due := int(time.Since(start).Seconds() * rate)
		if due > total {
			due = total
		}
		for ; i < due; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				began := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				class := send(ctx, base+int64(i))
				cancel()
				due := time.Duration(float64(i) / rate * float64(time.Second))
				outcomes[i] = outcome{seq: base + int64(i), start: began.Sub(start), latency: time.Since(began),
					lag: began.Sub(start) - due, class: class}
			}(i)
		}
		time.Sleep(500 * time.Microsecond)
	}
	wg.Wait()
	res := openResult{Rate: rate, Seconds: duration.Seconds(), Sent: total, Classes: map[string]int{}}
	var ok, refused, lags []time.Duration
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
	res.SendLagP99Ms = percentileMs(lags, 0.99)
	for _, b := range buckets {
		res.SeriesP99Ms = append(res.SeriesP99Ms, percentileMs(b, 0.99))
	}
	if latenciesFile != "" {
		var text strings.Builder
		for _, latency := range ok {
			text.WriteString(strconv.FormatInt(latency.Microseconds(), 10))
			text.WriteByte('\n')
		}
		if err := os.WriteFile(latenciesFile, []byte(text.String()), 0o644); err != nil {
			fail("write -latencies-file: %v", err)
		}
	}
	if timeoutsFile != "" {
		if err := os.WriteFile(timeoutsFile, []byte(strings.Join(timedOut, "\n")), 0o644); err != nil {
			fail("write -timeouts-file: %v", err)
		}
	}
	return res
}

// overrunSlack: a call that ends this much after its deadline was not watched by its caller in time.
const overrunSlack = 100 * time.Millisecond

func percentileMs(values []time.Duration, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
	return float64(values[int(p*float64(len(values)-1))].Microseconds()) / 1000
}

// openHTTPCaller calls url; maxConns > 0 bounds the connections as a client's pool does (a call
// then waits for one within its timeout), else every call without an idle connection dials one.
func openHTTPCaller(verb, url, body string, maxConns int) openCall {
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 20000, MaxIdleConnsPerHost: 20000,
		MaxConnsPerHost: maxConns}}
	return func(ctx context.Context, seq int64) string {
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
			if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				return "timeout"
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

func openGRPCCaller(addr, method string, payload []byte, conns int) openCall {
	invoke := grpcCaller(addr, method, payload, conns)
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

func printOpen(res openResult, target string) {
	res.Target = target
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	os.Exit(0)
}
