package engine

import (
	"context"
	"encoding/json"
	"testing"
)

// echo answers every call at once with one shared result: the lockstep's own cost.
type echo struct{}

var echoResult = json.RawMessage("true")

func (echo) Exchange(_ context.Context, calls []Call) []Reply {
	out := make([]Reply, len(calls))
	for i := range out {
		out[i].Result = echoResult
	}
	return out
}

// BenchmarkLockstep is the scheduler's cost per decision: games of 100 sequential calls
// over Go bots that answer at once, 1024 games in flight. b.N counts decisions.
func BenchmarkLockstep(b *testing.B) {
	const perGame = 100
	games := max(b.N/perGame, 1)
	b.ReportAllocs()
	b.ResetTimer()
	err := Lockstep{Exchanger: echo{}, Concurrency: 1024}.Run(context.Background(), games, func(t *Table) {
		for i := 0; i < perGame; i++ {
			t.Call(i%8, "next", nil)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLockstepGroups is BenchmarkLockstep with its games in two groups (512 each), as
// forty and White Elephant play them (engine.TickGroups).
func BenchmarkLockstepGroups(b *testing.B) {
	const perGame = 100
	games := max(b.N/perGame, 1)
	b.ReportAllocs()
	b.ResetTimer()
	err := Lockstep{Exchanger: echo{}, Concurrency: 1024, Groups: TickGroups}.Run(context.Background(), games, func(t *Table) {
		for i := 0; i < perGame; i++ {
			t.Call(i%8, "next", nil)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}
