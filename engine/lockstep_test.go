package engine

import (
	"context"
	"encoding/json"
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
