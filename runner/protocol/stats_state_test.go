package protocol

import (
	"reflect"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Accounting saved with State and restored with StatsFrom, then added to, equals the
// accounting that saw every decision; the first fault stays the earliest.
func TestStatsStateRoundTrip(t *testing.T) {
	crash := &engine.Fault{Outcome: engine.Crash, Detail: "first"}
	later := &engine.Fault{Outcome: engine.Timeout, Detail: "later"}
	host := &engine.Fault{Outcome: engine.HostFault}
	whole, head, tail := NewStats(), NewStats(), NewStats()
	for i, f := range []*engine.Fault{nil, crash, host, nil, later, nil} {
		whole.Record(f, i)
		if i < 3 {
			head.Record(f, i)
		} else {
			tail.Record(f, i)
		}
	}
	got := StatsFrom(head.State())
	got.Add(tail.State())
	if !reflect.DeepEqual(got.State(), whole.State()) {
		t.Errorf("restored and added: %+v, want %+v", got.State(), whole.State())
	}
	if f := got.First(); f == nil || f.Detail != "first" {
		t.Errorf("first fault %+v", f)
	}
}

// A bot's own fault is its first fault, even after a call it sat out benched: with games in
// flight, an early game's benched call comes first in game order and hid the fault that
// started the streak. Between two faults of its own, or two of the bench's, the first stays.
func TestFirstFaultIsTheBotsOwn(t *testing.T) {
	crash := &engine.Fault{Outcome: engine.Crash, Detail: "ZeroDivisionError"}
	later := &engine.Fault{Outcome: engine.Crash, Detail: "later"}
	bench := BenchedFault(20)
	s := NewStats()
	s.Record(bench, "game 1")
	if f := s.First(); f == nil || !f.Benched || !s.WantsFirst(crash) || s.WantsFirst(bench) {
		t.Fatalf("after a benched call: first %+v", f)
	}
	s.Record(crash, "game 300")
	s.Record(later, "game 301")
	s.Record(bench, "game 2")
	if f := s.First(); f == nil || f.Detail != "ZeroDivisionError" || f.Benched || s.WantsFirst(later) {
		t.Errorf("first %+v, want the crash", f)
	}
	// The same through Add, as the run's accounting folds games in order.
	run := NewStats()
	g1, g300 := NewStats(), NewStats()
	g1.Record(bench, "game 1")
	g300.Record(crash, "game 300")
	run.Add(g1.State())
	run.Add(g300.State())
	if f := run.First(); f == nil || f.Detail != "ZeroDivisionError" {
		t.Errorf("folded: first %+v, want the crash", f)
	}
	if counts := run.Counts(); counts[engine.Timeout] != 1 || counts[engine.Crash] != 1 {
		t.Errorf("folded counts %v", counts)
	}
}
