// Package protocol holds what the three bot protocols (pyclass, argv, dirfiles; one
// package each below this one) share: the fault accounting of each bot over a run (Stats,
// FirstFault, StatsState) and when a bot was benched.
package protocol

import (
	"encoding/json"
	"sync"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

// Stats is the fault accounting of one bot over one run: how every decision ended, and the
// first failure in full so the participant can reproduce it. A host fault is no decision
// of the bot's: it is counted apart (HostFaults) and never shown as the bot's.
type Stats struct {
	mu     sync.Mutex
	ok     int                    // decisions that ended in OK: nearly all, so not in the map
	counts map[engine.Outcome]int // the other outcomes; nil until the first fault
	first  *FirstFault
	host   int
	bench  *Bench // when the bot was benched (streak.go)
}

// FirstFault is the first decision of a run that did not end in OK: the first of the bot's
// own faults when it has one. A call it sat out benched (Benched) comes first in game
// order whenever a game in flight was still early when the bench began, and would hide
// the fault that started the streak.
type FirstFault struct {
	Outcome engine.Outcome
	Detail  string // exception text, stderr tail
	Input   string // the call that failed, as JSON
	Benched bool   `json:",omitempty"` // the bench's answer, not the bot's (engine.Fault.Benched)
}

// takesFirst says whether a fault (benched: the bench's answer) takes the place of the
// first fault kept, old: when there is none, or when old is the bench's and it the bot's
// own.
func takesFirst(old *FirstFault, benched bool) bool {
	return old == nil || old.Benched && !benched
}

// NewStats returns empty accounting, for protocols outside this package's pools.
func NewStats() *Stats { return &Stats{} }

// Record counts one decision; f is nil for OK. input describes the call.
func (s *Stats) Record(f *engine.Fault, input any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		s.ok++
		return
	}
	if f.Outcome == engine.HostFault {
		s.host++
		return
	}
	s.add(f.Outcome, 1)
	if takesFirst(s.first, f.Benched) {
		s.first = NewFirstFault(f, input)
	}
}

// NewFirstFault is f on input as a first fault is kept: detail and input (as JSON) cut to
// 2,000 bytes each.
func NewFirstFault(f *engine.Fault, input any) *FirstFault {
	in, _ := json.Marshal(input)
	return &FirstFault{Outcome: f.Outcome, Detail: sandbox.Truncate(f.Detail, 2000), Input: sandbox.Truncate(string(in), 2000), Benched: f.Benched}
}

// WantsFirst says whether fault f would become the first fault if it were counted now:
// there is none yet, or only the bench's and f is the bot's own.
func (s *Stats) WantsFirst(f *engine.Fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return takesFirst(s.first, f.Benched)
}

// RecordOK counts n decisions that ended in OK.
func (s *Stats) RecordOK(n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	s.ok += n
	s.mu.Unlock()
}

// add counts n decisions that ended in o (s.mu held).
func (s *Stats) add(o engine.Outcome, n int) {
	if o == engine.OK {
		s.ok += n
		return
	}
	if s.counts == nil {
		s.counts = map[engine.Outcome]int{}
	}
	s.counts[o] += n
}

// countsCopy returns the per-outcome counts as one map, OK included once counted (s.mu
// held).
func (s *Stats) countsCopy() map[engine.Outcome]int {
	out := make(map[engine.Outcome]int, len(s.counts)+1)
	for k, v := range s.counts {
		out[k] = v
	}
	if s.ok > 0 {
		out[engine.OK] = s.ok
	}
	return out
}

// Counts returns a copy of the per-outcome counts.
func (s *Stats) Counts() map[engine.Outcome]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.countsCopy()
}

// First returns the first fault, or nil.
func (s *Stats) First() *FirstFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		return nil
	}
	f := *s.first
	return &f
}

// HostFaults is the number of the bot's calls that failed for the host's reasons.
func (s *Stats) HostFaults() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.host
}

// Faults is the number of decisions that did not end in OK.
func (s *Stats) Faults() int {
	n := 0
	for o, c := range s.Counts() {
		if o != engine.OK {
			n += c
		}
	}
	return n
}
