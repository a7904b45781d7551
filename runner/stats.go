package runner

import (
	"encoding/json"
	"sync"

	"github.com/kothd/kothd/engine"
)

// Stats is the fault accounting of one bot over one run: how every decision ended, and the
// first failure in full so the participant can reproduce it. A host fault is no decision
// of the bot's: it is counted apart (HostFaults) and never shown as the bot's.
type Stats struct {
	mu     sync.Mutex
	counts map[engine.Outcome]int
	first  *FirstFault
	host   int
}

// FirstFault is the first decision of a run that did not end in OK.
type FirstFault struct {
	Outcome engine.Outcome
	Detail  string // exception text, stderr tail
	Input   string // the call that failed, as JSON
}

func newStats() *Stats { return &Stats{counts: map[engine.Outcome]int{}} }

// NewStats returns empty accounting, for protocols outside this package's pools.
func NewStats() *Stats { return newStats() }

// Record counts one decision; f is nil for OK. input describes the call.
func (s *Stats) Record(f *engine.Fault, input any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		s.counts[engine.OK]++
		return
	}
	if f.Outcome == engine.HostFault {
		s.host++
		return
	}
	s.counts[f.Outcome]++
	if s.first == nil {
		in, _ := json.Marshal(input)
		s.first = &FirstFault{Outcome: f.Outcome, Detail: truncate(f.Detail, 2000), Input: truncate(string(in), 2000)}
	}
}

func (s *Stats) record(f *engine.Fault, c engine.Call) { s.Record(f, c) }

// recordOK counts n decisions that ended in OK.
func (s *Stats) recordOK(n int) {
	if n == 0 {
		return
	}
	s.mu.Lock()
	s.counts[engine.OK] += n
	s.mu.Unlock()
}

// Counts returns a copy of the per-outcome counts.
func (s *Stats) Counts() map[engine.Outcome]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[engine.Outcome]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
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
