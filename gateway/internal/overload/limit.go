package overload

import (
	"math"
	"sync/atomic"
	"time"
)

// AdaptiveLimit is the in-flight limit, following what the machine behind it serves rather than
// a constant (the gradient of Netflix's concurrency-limits): once a window, the limit shrinks in
// proportion when the window's average hold rises above the shortest seen (with some tolerance:
// calls queued behind the server's own limit), and grows by about its square root while it does
// not and the limit is in use. The shortest hold creeps up slowly, so a server that became slower
// for good is learnt again. It stays between floor and ceiling. Observe is not safe for concurrent
// use (the admission serialises it); Current and Hold are.
type AdaptiveLimit struct {
	floor, ceiling float64
	limit          float64
	current        atomic.Int64
	hold           atomic.Int64 // smoothed time a call holds its slot, ns (0: none yet)

	windowStart time.Time
	windowSum   time.Duration
	windowCount int
	windowBusy  int     // the most calls in flight seen in the window
	minHold     float64 // the shortest window hold, creeping up by minHoldCreep a window, ns
}

const (
	limitWindow     = 100 * time.Millisecond
	limitWindowMin  = 10   // calls a window needs to count
	holdTolerance   = 2    // a window's hold may rise this far over the shortest before the limit shrinks
	minHoldCreep    = 1.01 // the shortest hold doubles in about 70 windows unless seen again
	limitSmoothing  = 0.2  // a new estimate moves the limit a fifth of the way
	holdSampleShift = 8    // the smoothed hold weighs each call 1/256: an estimate of waits steady over a few hundred calls
)

func NewAdaptiveLimit(floor, ceiling int) *AdaptiveLimit {
	floor = max(0, min(floor, ceiling))
	l := &AdaptiveLimit{floor: float64(floor), ceiling: float64(ceiling)}
	l.set(float64(ceiling))
	return l
}

func (l *AdaptiveLimit) set(limit float64) {
	l.limit = math.Max(l.floor, math.Min(l.ceiling, limit))
	l.current.Store(int64(math.Round(l.limit)))
}

// Current is the number of calls that may be in flight now.
func (l *AdaptiveLimit) Current() int { return int(l.current.Load()) }

// Hold is how long a call holds its slot, smoothed over recent calls (0 until one ends).
func (l *AdaptiveLimit) Hold() time.Duration { return time.Duration(l.hold.Load()) }

// Observe records a call that held its slot for held while busy calls were in flight (itself
// included), and moves the limit at the end of each window.
func (l *AdaptiveLimit) Observe(held time.Duration, busy int, now time.Time) {
	if old := l.hold.Load(); old == 0 {
		l.hold.Store(int64(held))
	} else {
		l.hold.Store(old + (int64(held)-old)>>holdSampleShift)
	}
	if l.windowStart.IsZero() {
		l.windowStart = now
	}
	l.windowSum += held
	l.windowCount++
	l.windowBusy = max(l.windowBusy, busy)
	if now.Sub(l.windowStart) < limitWindow || l.windowCount < limitWindowMin {
		return
	}
	short := float64(l.windowSum) / float64(l.windowCount)
	busiest := float64(l.windowBusy)
	l.windowStart, l.windowSum, l.windowCount, l.windowBusy = now, 0, 0, 0
	if l.minHold == 0 || short < l.minHold {
		l.minHold = short
	} else {
		l.minHold *= minHoldCreep
	}
	gradient := math.Max(0.5, math.Min(1, holdTolerance*l.minHold/short))
	// A limit not in use says nothing about what more would cost: it does not grow then.
	if gradient == 1 && busiest < l.limit/2 {
		return
	}
	estimate := l.limit*gradient + math.Sqrt(l.limit)
	l.set(l.limit + (estimate-l.limit)*limitSmoothing)
}
