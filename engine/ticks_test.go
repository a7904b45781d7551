package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// countingEx answers every call at once with its game, as stepPlay expects, and counts
// the ticks and calls it was handed.
type countingEx struct{ ticks, calls int }

func (c *countingEx) Exchange(_ context.Context, calls []Call) []Reply {
	c.ticks++
	c.calls += len(calls)
	out := make([]Reply, len(calls))
	for i, call := range calls {
		out[i] = Reply{Result: json.RawMessage(fmt.Sprint(call.Game))}
	}
	return out
}

// TestTickLog: a kept log holds every tick of every lockstep run, Run's and RunSteps'
// alike, each under the phase of its run in the order the runs began, and nothing once
// stopped; a newer log replaces an older one, which a late Stop leaves alone.
func TestTickLog(t *testing.T) {
	ex := &countingEx{}
	log := RecordTicks()
	if err := (Lockstep{Exchanger: ex, Concurrency: 8}).RunSteps(t.Context(), 20, func(g int) Stepper { return newStepPlay(g) }); err != nil {
		t.Fatal(err)
	}
	firstTicks, firstCalls := ex.ticks, ex.calls
	err := Lockstep{Exchanger: ex, Concurrency: 4}.Run(t.Context(), 6, func(tb *Table) {
		for range 3 {
			tb.Call(tb.Game%3, "x", nil)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ticks := log.Stop()
	if len(ticks) != ex.ticks {
		t.Fatalf("%d ticks logged, the exchanger was handed %d", len(ticks), ex.ticks)
	}
	calls := 0
	for i, k := range ticks {
		calls += k.Calls
		if want := 0; i >= firstTicks {
			want = 1
			if k.Phase != want {
				t.Fatalf("tick %d (of the second run) in phase %d", i, k.Phase)
			}
		} else if k.Phase != want {
			t.Fatalf("tick %d (of the first run) in phase %d", i, k.Phase)
		}
		if k.Calls == 0 || k.End.Before(k.Start) || (i > 0 && k.Start.Before(ticks[i-1].End)) {
			t.Fatalf("tick %d: %+v after %+v", i, k, ticks[max(i-1, 0)])
		}
	}
	if calls != ex.calls || firstCalls == 0 || ex.calls == firstCalls {
		t.Fatalf("%d calls logged, the exchanger was handed %d (%d in the first run)", calls, ex.calls, firstCalls)
	}
	// Stopped: the next run is not logged.
	before := ex.ticks
	if err := (Lockstep{Exchanger: ex, Concurrency: 8}).RunSteps(t.Context(), 5, func(g int) Stepper { return newStepPlay(g) }); err != nil {
		t.Fatal(err)
	}
	if again := log.Stop(); len(again) != len(ticks) || ex.ticks == before {
		t.Fatalf("a stopped log took %d more ticks", len(again)-len(ticks))
	}
	older, newer := RecordTicks(), RecordTicks()
	older.Stop()
	if err := (Lockstep{Exchanger: ex, Concurrency: 8}).RunSteps(t.Context(), 5, func(g int) Stepper { return newStepPlay(g) }); err != nil {
		t.Fatal(err)
	}
	if got := newer.Stop(); len(got) == 0 || got[0].Phase != 0 {
		t.Fatalf("the newer log has %+v", got)
	}
}
