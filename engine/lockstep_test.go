package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an Exchanger that notes, per bot, the sequence of calls it receives, and
// sleeps a random moment per batch so goroutine scheduling varies between runs.
type recorder struct {
	mu      sync.Mutex
	seen    map[int][]string
	batches int
	jitter  *rand.Rand
}

func (r *recorder) Exchange(ctx context.Context, calls []Call) []Reply {
	r.mu.Lock()
	r.batches++
	d := time.Duration(r.jitter.IntN(200)) * time.Microsecond
	for _, c := range calls {
		r.seen[c.Bot] = append(r.seen[c.Bot], fmt.Sprintf("g%d:%s", c.Game, c.Method))
	}
	r.mu.Unlock()
	time.Sleep(d)
	out := make([]Reply, len(calls))
	for i, c := range calls {
		out[i] = Reply{Result: json.RawMessage(fmt.Sprint(c.Game))}
	}
	return out
}

// play is a game whose length and bots depend only on its seed; between calls it yields
// for a random time to shake the scheduler.
func play(t *Table) {
	r := NewRand(GameSeed(7, t.Game))
	for turn := 0; turn < 3+r.IntN(10); turn++ {
		if r.IntN(4) == 0 { // a simultaneous move of two bots
			t.Ask(Call{Bot: r.IntN(5), Method: "a"}, Call{Bot: r.IntN(5), Method: "b"})
		} else {
			rep := t.Call(r.IntN(5), "c", nil)
			if string(rep.Result) != fmt.Sprint(t.Game) {
				panic("reply for another game")
			}
		}
		time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
	}
}

func TestLockstepOrderIsDeterministic(t *testing.T) {
	var first map[int][]string
	for run := 0; run < 4; run++ {
		rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(uint64(run), 1))}
		done := 0
		ls := Lockstep{Exchanger: rec, Concurrency: 16, Progress: func(d, total int) { done = d }}
		if err := ls.Run(context.Background(), 100, play); err != nil {
			t.Fatal(err)
		}
		if done != 100 {
			t.Fatalf("progress reached %d of 100", done)
		}
		if rec.batches >= 100*3 {
			t.Errorf("%d batches for 100 games: calls were not batched", rec.batches)
		}
		if run == 0 {
			first = rec.seen
			continue
		}
		if !reflect.DeepEqual(first, rec.seen) {
			t.Fatalf("run %d delivered calls in another order than run 0", run)
		}
	}
}

func TestLockstepReportsEnginePanic(t *testing.T) {
	rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(1, 1))}
	err := Lockstep{Exchanger: rec, Concurrency: 4}.Run(context.Background(), 10, func(t *Table) {
		t.Call(0, "x", nil)
		if t.Game == 3 {
			panic("boom")
		}
	})
	if err == nil || !strings.Contains(err.Error(), "game 3") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
}

func TestSeeds(t *testing.T) {
	if GameSeed(1, 0) == GameSeed(1, 1) || GameSeed(1, 0) == GameSeed(2, 0) {
		t.Error("game seeds collide")
	}
	if GameSeed(42, 5) != GameSeed(42, 5) || SubSeed(3, "a") == SubSeed(3, "b") {
		t.Error("seed derivation is not a function of its inputs")
	}
}

// cancelAfter is an Exchanger that cancels the run's context after some batches, as a
// SIGTERM would, and counts the calls it receives.
type cancelAfter struct {
	batches, calls int
	after          int
	cancel         context.CancelFunc
}

func (c *cancelAfter) Exchange(ctx context.Context, calls []Call) []Reply {
	c.batches++
	c.calls += len(calls)
	if c.batches == c.after {
		c.cancel()
	}
	return make([]Reply, len(calls))
}

func TestLockstepStartsNoGameAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := &cancelAfter{after: 5, cancel: cancel}
	var started int
	var mu sync.Mutex
	err := Lockstep{Exchanger: ex, Concurrency: 8}.Run(ctx, 100_000, func(tb *Table) {
		mu.Lock()
		started++
		mu.Unlock()
		for i := 0; i < 3; i++ {
			tb.Call(0, "c", nil)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want the cancellation", err)
	}
	// Up to 5 batches of 8 games with 3 calls each: at most the 8 games in flight when
	// the context was cancelled plus those that finished before can have started.
	if started > 5*8 {
		t.Fatalf("%d games started after a cancellation at batch 5 (want at most 40)", started)
	}
}

// With Groups the games in flight are dealt into groups whose calls a tick carries in
// turn: each bot receives the same calls in the same order, run after run, whatever the
// goroutines' scheduling; and each game still plays as it would with one group.
func TestLockstepGroupsOrderIsDeterministic(t *testing.T) {
	var first map[int][]string
	for run := 0; run < 4; run++ {
		rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(uint64(run), 2))}
		done := 0
		ls := Lockstep{Exchanger: rec, Concurrency: 16, Groups: 2, Progress: func(d, total int) { done = d }}
		if err := ls.Run(context.Background(), 100, play); err != nil {
			t.Fatal(err)
		}
		if done != 100 {
			t.Fatalf("progress reached %d of 100", done)
		}
		if run == 0 {
			first = rec.seen
			continue
		}
		if !reflect.DeepEqual(first, rec.seen) {
			t.Fatalf("run %d delivered calls in another order than run 0", run)
		}
	}
	rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(9, 9))}
	if err := (Lockstep{Exchanger: rec, Concurrency: 16}).Run(context.Background(), 100, play); err != nil {
		t.Fatal(err)
	}
	if a, b := perGame(first), perGame(rec.seen); !reflect.DeepEqual(a, b) {
		t.Fatal("a game's calls differ between two groups and one")
	}
	if reflect.DeepEqual(first, rec.seen) {
		t.Fatal("two groups delivered the calls in the order of one: the test cannot tell them apart")
	}
}

// A tick is one batch: group A's games in game order, then group B's, each group's ended
// games replaced when it is collected (A's refills take the next game numbers, then B's).
// That is the order the runs of forty and White Elephant have always had (their groups'
// ticks used to be sent as two batches in turn), so their tables do not change.
func TestLockstepTickCarriesGroupsInTurn(t *testing.T) {
	const games, conc = 40, 8
	calls := func(game int) int { return 1 + game%3 }
	// The reference: slots of two groups of four, a game leaving after its calls.
	var want [][]int
	groups, left, next := [2][]int{}, map[int]int{}, 0
	for next < games || len(groups[0])+len(groups[1]) > 0 {
		var tick []int
		for g := range groups {
			for len(groups[g]) < conc/2 && next < games {
				groups[g] = append(groups[g], next)
				left[next] = calls(next)
				next++
			}
			tick = append(tick, groups[g]...)
		}
		want = append(want, tick)
		for g := range groups {
			kept := groups[g][:0]
			for _, game := range groups[g] {
				if left[game]--; left[game] > 0 {
					kept = append(kept, game)
				}
			}
			groups[g] = kept
		}
	}
	for _, steps := range []bool{false, true} {
		ex := &ticks{}
		ls := Lockstep{Exchanger: ex, Concurrency: conc, Groups: 2}
		var err error
		if steps {
			err = ls.RunSteps(context.Background(), games, func(game int) Stepper {
				n := calls(game)
				return stepFunc(func(_ []Reply, c []Call) []Call {
					if n == 0 {
						return c
					}
					n--
					return append(c, Call{Method: "c"})
				})
			})
		} else {
			err = ls.Run(context.Background(), games, func(t *Table) {
				for range calls(t.Game) {
					t.Call(0, "c", nil)
				}
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ex.games, want) {
			t.Errorf("steps=%v: the ticks held the games\n%v\nwant\n%v", steps, ex.games, want)
		}
	}
}

// ticks is an Exchanger that notes the games of each batch, in the batch's order.
type ticks struct{ games [][]int }

func (x *ticks) Exchange(_ context.Context, calls []Call) []Reply {
	var g []int
	for _, c := range calls {
		g = append(g, c.Game)
	}
	x.games = append(x.games, g)
	return make([]Reply, len(calls))
}

// perGame regroups a recorder's per-bot sequences as each game's calls to each bot, in order.
func perGame(seen map[int][]string) map[string][]string {
	out := map[string][]string{}
	for bot, calls := range seen {
		for _, c := range calls {
			g, m, _ := strings.Cut(c, ":")
			k := fmt.Sprintf("%s/bot%d", g, bot)
			out[k] = append(out[k], m)
		}
	}
	return out
}

// With fewer games to play than the concurrency, the groups share them evenly (they were
// one of conc/2 games and one of the rest).
func TestLockstepGroupsShareFewGamesEvenly(t *testing.T) {
	for _, c := range []struct {
		l     Lockstep
		games int
		want  []int
	}{
		{Lockstep{Concurrency: 16, Groups: 2}, 10, []int{5, 5}},
		{Lockstep{Concurrency: 16, Groups: 2}, 11, []int{6, 5}},
		{Lockstep{Concurrency: 16, Groups: 2, First: 17}, 20, []int{2, 1}},
		{Lockstep{Concurrency: 16, Groups: 2}, 1, []int{1}},
		{Lockstep{Concurrency: 16}, 100, []int{16}},
		{Lockstep{Concurrency: 0, Groups: 2}, 100, []int{1}},
	} {
		if got := c.l.groupSizes(c.games); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v over %d games: groups of %v, want %v", c.l, c.games, got, c.want)
		}
	}
}
