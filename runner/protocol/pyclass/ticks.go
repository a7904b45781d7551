package pyclass

import (
	"sync"
	"sync/atomic"
	"time"
)

// Tick is one exchange of a PyPool: a lockstep tick, one batch per bot that has calls in
// it. kothd bench reads a run's ticks to show how much of its wall time went to the tail,
// the last ticks, which carry only the longest games' calls (cmd/kothd/bench_ticks.go).
type Tick struct {
	Calls      int
	Start, End time.Time
}

// TickLog records the exchanges of every PyPool while it is the one RecordTicks made.
type TickLog struct {
	mu    sync.Mutex
	ticks []Tick
}

// tickLog is the log being kept; nil, as in a daemon, keeps none (one atomic load per
// exchange).
var tickLog atomic.Pointer[TickLog]

// RecordTicks starts a log of the exchanges from now on, replacing any other.
func RecordTicks() *TickLog {
	l := &TickLog{}
	tickLog.Store(l)
	return l
}

// Stop ends the log (if it is still the one kept) and returns its ticks in the order they
// started.
func (l *TickLog) Stop() []Tick {
	tickLog.CompareAndSwap(l, nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ticks
}

// noteTick records an exchange of n calls that ran from start until now.
func noteTick(n int, start time.Time) {
	l := tickLog.Load()
	if l == nil {
		return
	}
	end := time.Now()
	l.mu.Lock()
	l.ticks = append(l.ticks, Tick{Calls: n, Start: start, End: end})
	l.mu.Unlock()
}
