package main

import (
	"runtime"
	runtimemetrics "runtime/metrics"
	"testing"
	"time"
)

func TestTheFloorRaisesGOGCForASmallHeapOnly(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, roots uint64
		want        int
	}{
		{4 * mib, 0, 400},        // 4 MiB may grow by 16 MiB: GOGC 400
		{3 * mib, 1 * mib, 400},  // the pacer counts stacks and globals too
		{8 * mib, 0, 200},        // by 16 MiB, twice itself
		{12 * mib, 4 * mib, 100}, // the floor reached: Go's default
		{400 * mib, 0, 100},      // a flood's heap: never more than the default
		{0, 0, maxGCPercent},
		{100 << 10, 0, maxGCPercent}, // 100 KB at start: bounded
	} {
		if got := gcPercentFor(c.live, c.roots, 16*mib); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.live, c.roots, got, c.want)
		}
	}
}

// gogc is the GOGC the runtime runs with now.
func gogc() uint64 {
	sample := []runtimemetrics.Sample{{Name: "/gc/gogc:percent"}}
	runtimemetrics.Read(sample)
	return sample[0].Value.Uint64()
}

func TestAfterACollectionGOGCFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	floor := startGCFloor(64 << 20) // far above this test binary's live heap
	if floor == nil {
		t.Fatal("no floor without GOGC in the environment")
	}
	defer floor.stop()
	deadline := time.Now().Add(5 * time.Second)
	for gogc() <= 100 && time.Now().Before(deadline) {
		runtime.GC() // the finalizer runs after a collection, on its own goroutine
		time.Sleep(10 * time.Millisecond)
	}
	if got := gogc(); got <= 100 {
		t.Fatalf("GOGC %d after collections of a small heap, want it raised", got)
	}
	floor.stop()
	if got := gogc(); got != 100 {
		t.Fatalf("GOGC %d after stop, want 100", got)
	}
}

func TestGOGCInTheEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "150")
	if startGCFloor(gcHeapFloor) != nil {
		t.Fatal("the floor started although GOGC is set")
	}
}
