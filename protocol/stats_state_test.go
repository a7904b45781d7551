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
