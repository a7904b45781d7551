package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// Tick is one exchange of a lockstep run, as kothd bench's tick log keeps it: the calls it
// carried, when the Exchanger was handed them and when it answered, and the lockstep run
// (Lockstep.Run or RunSteps: a phase) it belongs to, numbered in the order the runs began.
// A game that plays in phases (Ruins' pool, then its finals) has a run per phase.
type Tick struct {
	Phase, Calls int
	Start, End   time.Time
}

// TickLog records the ticks of every lockstep run while it is the log RecordTicks made.
type TickLog struct {
	mu     sync.Mutex
	phases int
	ticks  []Tick
}

// keptTicks is the log being kept; nil, as in a daemon, keeps none (one atomic load when
// a lockstep run begins, nothing per tick).
var keptTicks atomic.Pointer[TickLog]

// RecordTicks starts a log of the lockstep runs' ticks from now on, replacing any other
// (kothd bench's measure of a run).
func RecordTicks() *TickLog {
	l := &TickLog{}
	keptTicks.Store(l)
	return l
}

// Stop ends the log (if it is still the one kept) and returns its ticks in the order they
// were answered.
func (l *TickLog) Stop() []Tick {
	keptTicks.CompareAndSwap(l, nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ticks
}

// tickPhase is the log kept when a lockstep run begins (nil: none) and the run's phase
// number in it.
func tickPhase() (*TickLog, int) {
	l := keptTicks.Load()
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phases++
	return l, l.phases - 1
}

// note records a tick of phase that carried n calls from start until now.
func (l *TickLog) note(phase, n int, start time.Time) {
	end := time.Now()
	l.mu.Lock()
	l.ticks = append(l.ticks, Tick{Phase: phase, Calls: n, Start: start, End: end})
	l.mu.Unlock()
}
