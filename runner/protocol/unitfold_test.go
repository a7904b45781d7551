package protocol

import (
	"testing"

	"github.com/kothd/kothd/engine"
)

// unitStats is one bot's accounting of a unit that faulted once with detail d.
func unitStats(d string) []*Stats {
	s := NewStats()
	s.Record(&engine.Fault{Outcome: engine.Crash, Detail: d}, d)
	return []*Stats{s}
}

// Units that end out of order are added in unit order: the first fault is unit 0's, and a
// unit after a gap waits until Flush.
func TestUnitFoldAddsInUnitOrder(t *testing.T) {
	run := []*Stats{NewStats()}
	f := NewUnitFold(run)
	f.End(1, unitStats("unit 1"))
	if n := run[0].Faults(); n != 0 {
		t.Fatalf("unit 1 added before unit 0 ended: %d faults", n)
	}
	f.End(0, unitStats("unit 0"))
	if n, first := run[0].Faults(), run[0].First(); n != 2 || first == nil || first.Detail != "unit 0" {
		t.Fatalf("after units 1 and 0: %d faults, first %+v; want 2, unit 0's", n, first)
	}
	f.End(3, unitStats("unit 3")) // unit 2 never ends: a shard's numbering, a run stopped early
	if n := run[0].Faults(); n != 2 {
		t.Fatalf("unit 3 added past the gap: %d faults", n)
	}
	f.Flush()
	if n := run[0].Faults(); n != 3 {
		t.Fatalf("Flush left unit 3 out: %d faults", n)
	}
}
