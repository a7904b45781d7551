package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// stepPlay is play (lockstep_test.go) as a Stepper: the same calls, asked the same way.
type stepPlay struct {
	game  int
	r     *rand.Rand
	turn  int
	turns int
}

func newStepPlay(game int) *stepPlay {
	r := NewRand(GameSeed(7, game))
	return &stepPlay{game: game, r: r}
}

func (p *stepPlay) Step(replies []Reply, calls []Call) []Call {
	if len(replies) == 1 && string(replies[0].Result) != fmt.Sprint(p.game) {
		panic("reply for another game")
	}
	// play draws the loop bound before each turn: 3+r.IntN(10) is evaluated at every test.
	if p.turn >= 3+p.r.IntN(10) {
		return calls
	}
	p.turn++
	if p.r.IntN(4) == 0 {
		return append(calls, Call{Bot: p.r.IntN(5), Method: "a"}, Call{Bot: p.r.IntN(5), Method: "b"})
	}
	return append(calls, Call{Bot: p.r.IntN(5), Method: "c"})
}

// The step-function scheduler delivers every bot the very calls, in the very order, that
// the goroutine-per-game scheduler delivers for the same games: in one group and in two,
// over several concurrencies, and for a run resumed after its first games.
func TestRunStepsDeliversAsRun(t *testing.T) {
	for _, groups := range []int{1, 2} {
		for _, conc := range []int{1, 5, 64} {
			for _, first := range []int{0, 17} {
				if first > 0 && conc != 5 {
					continue
				}
				name := fmt.Sprintf("groups=%d conc=%d first=%d", groups, conc, first)
				ex := func(run int) (Exchanger, *recorder) {
					rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(uint64(run), 3))}
					return rec, rec
				}
				a, recA := ex(1)
				doneA := 0
				if err := (Lockstep{Exchanger: a, Concurrency: conc, Groups: groups, First: first, Progress: func(d, _ int) { doneA = d }}).Run(context.Background(), 50, play); err != nil {
					t.Fatal(err)
				}
				b, recB := ex(2)
				doneB := 0
				err := Lockstep{Exchanger: b, Concurrency: conc, Groups: groups, First: first, Progress: func(d, _ int) { doneB = d }}.RunSteps(context.Background(), 50, func(g int) Stepper { return newStepPlay(g) })
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(recA.seen, recB.seen) {
					t.Errorf("%s: the bots received other calls from RunSteps than from Run", name)
				}
				if recA.batches != recB.batches {
					t.Errorf("%s: %d ticks from Run, %d from RunSteps", name, recA.batches, recB.batches)
				}
				if doneA != 50 || doneB != 50 {
					t.Errorf("%s: progress reached %d (Run) and %d (RunSteps)", name, doneA, doneB)
				}
			}
		}
	}
}

// RunSteps calls start and Step from its own goroutine only: a Stepper needs no lock.
// (The race detector would see a second goroutine; here a plain counter must add up.)
func TestRunStepsStepsGamesOneAtATime(t *testing.T) {
	steps := 0
	rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(4, 4))}
	err := Lockstep{Exchanger: rec, Concurrency: 8, Groups: 2}.RunSteps(context.Background(), 30, func(g int) Stepper {
		return stepFunc(func(_ []Reply, calls []Call) []Call {
			steps++
			if steps%5 == 0 {
				return calls
			}
			return append(calls, Call{Bot: 0, Method: "c"})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.seen[0]); steps != n+30 {
		t.Fatalf("%d steps for %d calls of 30 games", steps, n)
	}
}

type stepFunc func(replies []Reply, calls []Call) []Call

func (f stepFunc) Step(replies []Reply, calls []Call) []Call { return f(replies, calls) }

func TestRunStepsReportsEnginePanic(t *testing.T) {
	rec := &recorder{seen: map[int][]string{}, jitter: rand.New(rand.NewPCG(1, 1))}
	ended := 0
	err := Lockstep{Exchanger: rec, Concurrency: 4, Progress: func(d, _ int) { ended = d }}.RunSteps(context.Background(), 10, func(g int) Stepper {
		if g == 6 {
			panic("bust at start")
		}
		asked := false
		return stepFunc(func(_ []Reply, calls []Call) []Call {
			if asked {
				if g == 3 {
					panic("boom")
				}
				return calls
			}
			asked = true
			return append(calls, Call{Bot: 0, Method: "x"})
		})
	})
	if err == nil || !strings.Contains(err.Error(), "game 3") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	if ended != 10 {
		t.Fatalf("%d of 10 games ended", ended)
	}
	if n := len(rec.seen[0]); n != 9 {
		t.Fatalf("%d calls, want one from each game but the one whose start panicked", n)
	}
}

func TestRunStepsStartsNoGameAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := &cancelAfter{after: 5, cancel: cancel}
	started := 0
	err := Lockstep{Exchanger: ex, Concurrency: 8}.RunSteps(ctx, 100_000, func(int) Stepper {
		started++
		n := 0
		return stepFunc(func(_ []Reply, calls []Call) []Call {
			if n++; n > 3 {
				return calls
			}
			return append(calls, Call{Bot: 0, Method: "c"})
		})
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunSteps returned %v, want the cancellation", err)
	}
	if started > 5*8 {
		t.Fatalf("%d games started after a cancellation at batch 5 (want at most 40)", started)
	}
}

// tickLog records every tick whole, in order, and answers each call with its game.
type tickLog struct{ ticks []string }

func (l *tickLog) Exchange(_ context.Context, calls []Call) []Reply {
	var b strings.Builder
	out := make([]Reply, len(calls))
	for i, c := range calls {
		fmt.Fprintf(&b, "g%d:%d:%s ", c.Game, c.Bot, c.Method)
		out[i] = Reply{Result: []byte(fmt.Sprint(c.Game))}
	}
	l.ticks = append(l.ticks, b.String())
	return out
}

// enderPlay is a stepPlay that hands its run its end (engine.Ender): it notes the game in
// the run's list of ends, and the end of game stopAt cancels the run, as a checkpoint's
// stop does from engine.Fold.
type enderPlay struct {
	*stepPlay
	ends   *[]int
	stopAt int
	cancel context.CancelFunc
}

func (p enderPlay) End() {
	*p.ends = append(*p.ends, p.game)
	if p.game == p.stopAt {
		p.cancel()
	}
}

// ParallelSteps steps the groups side by side and plays the very run stepped group after
// group: every tick the same, the games ended (End) and counted in the same order, the
// same first panic (games whose start or a later step panics, in every group), and after
// a stop from a game's end the same games started. End is called from RunSteps' goroutine
// (the ends' list has no lock: the race detector would see it otherwise).
func TestRunStepsParallelStepsPlaysTheSameRun(t *testing.T) {
	for _, stopAt := range []int{-1, 9, 30} {
		for _, groups := range []int{2, 3} {
			for _, conc := range []int{2, 7, 64} {
				type run struct {
					ticks    []string
					progress []int
					ends     []int
					err      string
				}
				play := func(parallel bool) run {
					var r run
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					start := func(g int) Stepper {
						switch g % 23 {
						case 5:
							panic(fmt.Sprintf("start of game %d", g))
						case 11, 12:
							p := newStepPlay(g)
							return stepFunc(func(replies []Reply, calls []Call) []Call {
								if p.turn == 2 {
									panic(fmt.Sprintf("step of game %d", g))
								}
								return p.Step(replies, calls)
							})
						}
						return enderPlay{stepPlay: newStepPlay(g), ends: &r.ends, stopAt: stopAt, cancel: cancel}
					}
					log := &tickLog{}
					err := Lockstep{Exchanger: log, Concurrency: conc, Groups: groups, ParallelSteps: parallel,
						Progress: func(d, _ int) { r.progress = append(r.progress, d) }}.RunSteps(ctx, 120, start)
					r.ticks = log.ticks
					if err != nil {
						r.err = err.Error()
						if i := strings.Index(r.err, "\n"); i >= 0 {
							r.err = r.err[:i] // the panic, not its stack
						}
					}
					return r
				}
				one, side := play(false), play(true)
				name := fmt.Sprintf("stop at %d, groups=%d conc=%d", stopAt, groups, conc)
				if !reflect.DeepEqual(one, side) {
					t.Errorf("%s: stepped side by side, the run differs:\none by one %d ticks, %d ended, %v, %q\nside by side %d ticks, %d ended, %v, %q",
						name, len(one.ticks), len(one.progress), one.ends, one.err, len(side.ticks), len(side.progress), side.ends, side.err)
				}
				if stopAt < 0 && (len(one.progress) != 120 || len(one.ends) != 120-5-10 || !strings.Contains(one.err, "panic")) {
					t.Errorf("%s: %d games counted, %d ended by their rules, error %q", name, len(one.progress), len(one.ends), one.err)
				}
				if stopAt >= 0 && len(one.progress) >= 120 {
					t.Errorf("%s: %d games counted after a stop", name, len(one.progress))
				}
			}
		}
	}
}
