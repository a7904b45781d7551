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

// pipe is a Pipeliner over a recorder: each batch is answered by its own goroutine after a
// random moment, once the batch sent before it is answered, as a runner answers each bot's
// batches in order.
type pipe struct {
	*recorder
	last chan struct{}
	sent int
}

func (p *pipe) Send(ctx context.Context, calls []Call) func() []Reply {
	p.sent++
	before, done := p.last, make(chan struct{})
	p.last = done
	var replies []Reply
	go func() {
		defer close(done)
		if before != nil {
			<-before
		}
		replies = p.recorder.Exchange(ctx, calls)
	}()
	return func() []Reply { <-done; return replies }
}

// A pipelined run delivers each bot the same calls in the same order, run after run, as
// two groups of games whose ticks alternate; and each game still plays as it would alone.
func TestLockstepPipelinedOrderIsDeterministic(t *testing.T) {
	var first map[int][]string
	for run := 0; run < 4; run++ {
		p := &pipe{recorder: &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(uint64(run), 2))}}
		done := 0
		ls := Lockstep{Exchanger: p, Concurrency: 16, Progress: func(d, total int) { done = d }}
		if err := ls.Run(context.Background(), 100, play); err != nil {
			t.Fatal(err)
		}
		if done != 100 {
			t.Fatalf("progress reached %d of 100", done)
		}
		if p.sent == 0 || p.sent != p.batches {
			t.Fatalf("%d batches sent, %d answered", p.sent, p.batches)
		}
		if run == 0 {
			first = p.seen
			continue
		}
		if !reflect.DeepEqual(first, p.seen) {
			t.Fatalf("run %d delivered calls in another order than run 0", run)
		}
	}
	// The same games unpipelined: each game's own calls are the same, in the same order.
	rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(9, 9))}
	if err := (Lockstep{Exchanger: rec, Concurrency: 16}).Run(context.Background(), 100, play); err != nil {
		t.Fatal(err)
	}
	if a, b := perGame(first), perGame(rec.seen); !reflect.DeepEqual(a, b) {
		t.Fatal("a game's calls differ between the pipelined and the plain run")
	}
}

// The two groups' ticks alternate: while one is being answered, the other's is queued.
func TestLockstepPipelinedOverlaps(t *testing.T) {
	p := &overlap{}
	err := Lockstep{Exchanger: p, Concurrency: 8}.Run(context.Background(), 40, func(t *Table) {
		for i := 0; i < 5; i++ {
			t.Call(0, "c", nil)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.maxOutstanding != 2 {
		t.Fatalf("at most %d batches were outstanding at once, want 2", p.maxOutstanding)
	}
}

// overlap answers each batch only when the next one is sent (or when asked for the
// replies), and notes how many were outstanding at once.
type overlap struct {
	outstanding, maxOutstanding int
}

func (o *overlap) Exchange(_ context.Context, calls []Call) []Reply { return make([]Reply, len(calls)) }

func (o *overlap) Send(_ context.Context, calls []Call) func() []Reply {
	o.outstanding++
	o.maxOutstanding = max(o.maxOutstanding, o.outstanding)
	return func() []Reply {
		o.outstanding--
		return make([]Reply, len(calls))
	}
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

// gamesPerBatch is a Pipeliner over pipe that notes how many games each batch holds.
type gamesPerBatch struct {
	*pipe
	games []int
}

func (g *gamesPerBatch) Send(ctx context.Context, calls []Call) func() []Reply {
	seen := map[int]bool{}
	for _, c := range calls {
		seen[c.Game] = true
	}
	g.games = append(g.games, len(seen))
	return g.pipe.Send(ctx, calls)
}

// With fewer games to play than the concurrency, the two groups share them evenly (they
// were one of conc/2 games and one of the rest), in Run and RunSteps alike.
func TestLockstepGroupsShareFewGamesEvenly(t *testing.T) {
	newEx := func() *gamesPerBatch {
		return &gamesPerBatch{pipe: &pipe{recorder: &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(1, 1))}}}
	}
	ex := newEx()
	if err := (Lockstep{Exchanger: ex, Concurrency: 16}).Run(context.Background(), 10, play); err != nil {
		t.Fatal(err)
	}
	if len(ex.games) < 2 || ex.games[0] != 5 || ex.games[1] != 5 {
		t.Errorf("Run: the first two ticks held %v games, want 5 and 5", ex.games[:min(2, len(ex.games))])
	}
	ex = newEx()
	start := func(game int) Stepper { return newStepPlay(game) }
	if err := (Lockstep{Exchanger: ex, Concurrency: 16}).RunSteps(context.Background(), 10, start); err != nil {
		t.Fatal(err)
	}
	if len(ex.games) < 2 || ex.games[0] != 5 || ex.games[1] != 5 {
		t.Errorf("RunSteps: the first two ticks held %v games, want 5 and 5", ex.games[:min(2, len(ex.games))])
	}
}
