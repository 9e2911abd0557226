package main

import (
	"os"
	"runtime"
	"runtime/debug"
	runtimemetrics "runtime/metrics"
	"sync/atomic"
)

// gcHeapFloor is the least the heap may grow between two collections. The gateway's live heap is
// a few MB, and at Go's default GOGC=100 a heap that small is collected every few MB allocated: 30
// to 40 times a second at a few thousand requests a second (~40 KB each), which cost the gateway
// ~10 % of its CPU per request and, with tracing sampled at 100 % (15-40 % more collections), most
// of what tracing added (docs/performance.md, "Tracing overhead"; "Overload on REST"). With the
// floor: six times fewer collections, ~10 % less CPU per cached GetRoom, ~5-10 MB more RSS at
// normal load. Once the live heap and its roots are larger than the floor (thousands of
// connections), GOGC is the default again, so the heap under a flood is what it was (64 MB at
// 6,000 callers against 111 MB with GOGC=400): never a larger multiple of a large heap.
const gcHeapFloor = 16 << 20

// maxGCPercent bounds the GOGC the floor sets: the value it sets is for the next cycle, and a heap
// that grew meanwhile (at start, a burst) would get that multiple of itself.
const maxGCPercent = 400

// gcPercentFor is the GOGC that lets the heap grow by at least floor before the next collection,
// for a collection that found live bytes of heap and roots bytes of goroutine stacks and globals
// (Go's pacer grows the heap by GOGC % of all three): Go's default 100 once they are floor or more.
func gcPercentFor(live, roots, floor uint64) int {
	if base := live + roots; base < floor {
		return int(min(floor*100/max(base, 1), maxGCPercent))
	}
	return 100
}

// gcFloor sets GOGC after every collection from the live heap the collection found.
type gcFloor struct {
	floor   uint64
	percent int
	sample  []runtimemetrics.Sample
	stopped atomic.Bool
}

// startGCFloor keeps the heap's growth between collections at least floor bytes, unless GOGC is
// set in the environment (the operator's choice wins). The soft memory limit (memlimit.go) still
// bounds the heap: near it the collector runs whatever GOGC says.
func startGCFloor(floor uint64) *gcFloor {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	g := &gcFloor{floor: floor, percent: 100, sample: []runtimemetrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	g.arm()
	return g
}

// sentinel is garbage at once; its finalizer runs after the collection that found it.
type sentinel struct{ _ [16]byte }

// arm has tune run after the next collection: the finalizer of an object nothing refers to.
func (g *gcFloor) arm() {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) {
		if g.stopped.Load() {
			return
		}
		g.tune()
		g.arm()
	})
}

// tune sets GOGC for the live heap the last collection found; a change under a tenth is left
// alone (every collection would otherwise set it).
func (g *gcFloor) tune() {
	runtimemetrics.Read(g.sample)
	for _, s := range g.sample {
		if s.Value.Kind() != runtimemetrics.KindUint64 {
			return
		}
	}
	percent := gcPercentFor(g.sample[0].Value.Uint64(), g.sample[1].Value.Uint64()+g.sample[2].Value.Uint64(), g.floor)
	if diff := percent - g.percent; diff*10 > g.percent || -diff*10 > g.percent {
		debug.SetGCPercent(percent)
		g.percent = percent
	}
}

// stop ends the tuning (tests) and gives GOGC back its default.
func (g *gcFloor) stop() {
	g.stopped.Store(true)
	debug.SetGCPercent(100)
}
