package forty_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// recorder passes every exchange to the pool and writes down each reply as the engine got
// it, in order: result bytes, or outcome and detail.
type recorder struct {
	pool *pyclass.PyPool
	log  strings.Builder
}

func (r *recorder) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := r.pool.Exchange(ctx, calls)
	for i, rep := range replies {
		if rep.Fault != nil {
			fmt.Fprintf(&r.log, "%d %d %s fault %s %q\n", calls[i].Bot, calls[i].Game, calls[i].Method, rep.Fault.Outcome, rep.Fault.Detail)
			continue
		}
		fmt.Fprintf(&r.log, "%d %d %s %s\n", calls[i].Bot, calls[i].Game, calls[i].Method, rep.Result)
	}
	return replies
}

// kothd bench has the harnesses serve Handler.timed_call (the bots' code timed) instead of
// call for the calls it samples: the bots must get the same calls and give the same
// replies, failures and their descriptions included, and the table must be the same. The
// measured run here times every call (MeasureHarnesses(1)), so that every reply goes
// through timed_call.
func TestMeasuredHarnessRepliesAlike(t *testing.T) {
	bots := prepare(t)
	play := func(measured bool) (*forty.Tally, string) {
		if measured {
			pyclass.MeasureHarnesses(1)
		}
		defer pyclass.MeasureHarnesses(0)
		rec := &recorder{pool: pyclass.NewPyPool(sandbox.Unsandboxed{}, pyConfig(), bots)}
		defer rec.pool.Close()
		tally, err := forty.Run(context.Background(), rec, entrantsOf(bots), forty.Options{Games: 200, Seed: 42, Concurrency: 16})
		if err != nil {
			t.Fatal(err)
		}
		return tally, rec.log.String()
	}
	plainTally, plain := play(false)
	before := pyclass.HarnessTotals()
	timedTally, timed := play(true)
	if got := pyclass.HarnessTotals().Sub(before); got.BotTimed != len(bots) {
		t.Fatalf("%d of %d harnesses reported timed bot code: %+v", got.BotTimed, len(bots), got)
	}
	if plain != timed {
		a, b := strings.Split(plain, "\n"), strings.Split(timed, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("reply %d differs:\nplain %s\ntimed %s", i, a[i], b[i])
			}
		}
		t.Fatalf("replies differ in number: %d and %d", len(a), len(b))
	}
	if !reflect.DeepEqual(plainTally, timedTally) {
		t.Fatalf("tables differ:\n%+v\n%+v", plainTally, timedTally)
	}
}
