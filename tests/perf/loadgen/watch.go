package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protowire"
)

// watchResult is what -watch prints: how long changes took from their write to each watcher.
type watchResult struct {
	Watchers int     `json:"watchers"`
	Changes  int     `json:"changes"` // deliveries measured (changes × watchers)
	Errors   int     `json:"errors"`  // streams that ended early
	FirstErr string  `json:"first_error,omitempty"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

// runWatch opens n streams of method (WatchChanges; request: the -data bytes), prints "ready" once every
// stream has its first message, and for the next duration measures, for each change received,
// the time from the resource's created_at (the writing transaction's start, in the view FULL
// record) to its arrival: commit-to-delivery plus the write itself.
const streamsPerConn = 500

func runWatch(addr, method string, n int, payload []byte, duration time.Duration) {
	// A connection per 500 streams, as many clients would have: the server allows about a
	// thousand streams per connection (MAX_CONCURRENT_STREAMS).
	conns := make([]*grpc.ClientConn, (n+streamsPerConn-1)/streamsPerConn)
	for i := range conns {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
		if err != nil {
			fail("dial %s: %v", addr, err)
		}
		conns[i] = conn
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	desc := &grpc.StreamDesc{StreamName: "WatchChanges", ServerStreams: true}
	var mu sync.Mutex
	var latencies []time.Duration
	res := watchResult{Watchers: n}
	var ready, done sync.WaitGroup
	ready.Add(n)
	var start time.Time
	for i := 0; i < n; i++ {
		done.Add(1)
		conn := conns[i/streamsPerConn]
		go func() {
			defer done.Done()
			readyOnce := sync.OnceFunc(ready.Done)
			defer readyOnce()
			stream, err := conn.NewStream(ctx, desc, method)
			if err == nil {
				req := payload
				err = stream.SendMsg(&req)
			}
			if err == nil {
				err = stream.CloseSend()
			}
			var local []time.Duration
			for err == nil {
				var msg []byte
				if err = stream.RecvMsg(&msg); err != nil {
					break
				}
				readyOnce()
				if created, ok := createdAt(msg); ok && !start.IsZero() && created.After(start) {
					local = append(local, time.Since(created))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, local...)
			if ctx.Err() == nil {
				res.Errors++
				if res.FirstErr == "" {
					res.FirstErr = err.Error()
				}
			}
		}()
	}
	ready.Wait()
	mu.Lock()
	start = time.Now()
	mu.Unlock()
	fmt.Println("ready")
	time.Sleep(duration)
	cancel()
	done.Wait()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	res.Changes = len(latencies)
	if len(latencies) > 0 {
		res.P50Ms = percentile(latencies, 0.50)
		res.P99Ms = percentile(latencies, 0.99)
		res.MaxMs = float64(latencies[len(latencies)-1].Microseconds()) / 1000
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	os.Exit(0)
}

// field returns the first length-delimited field number of msg.
func field(msg []byte, number protowire.Number) ([]byte, bool) {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, false
		}
		msg = msg[n:]
		if num == number && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(msg)
			return v, m >= 0
		}
		m := protowire.ConsumeFieldValue(num, typ, msg)
		if m < 0 {
			return nil, false
		}
		msg = msg[m:]
	}
	return nil, false
}

// createdAt reads change.resource.fields["created_at"].string_value of a WatchChangesResponse.
func createdAt(msg []byte) (time.Time, bool) {
	change, ok := field(msg, 1)
	if !ok {
		return time.Time{}, false
	}
	resource, ok := field(change, 10)
	if !ok {
		return time.Time{}, false
	}
	for len(resource) > 0 {
		num, typ, n := protowire.ConsumeTag(resource)
		if n < 0 {
			return time.Time{}, false
		}
		resource = resource[n:]
		if num != 1 || typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, resource)
			if m < 0 {
				return time.Time{}, false
			}
			resource = resource[m:]
			continue
		}
		entry, m := protowire.ConsumeBytes(resource)
		if m < 0 {
			return time.Time{}, false
		}
		resource = resource[m:]
		key, _ := field(entry, 1)
		if string(key) != "created_at" {
			continue
		}
		value, _ := field(entry, 2)
		text, _ := field(value, 3)
		t, err := time.Parse(time.RFC3339Nano, string(text))
		return t, err == nil
	}
	return time.Time{}, false
}
