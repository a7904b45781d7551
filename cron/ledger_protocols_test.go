package cron

import (
	"context"
	"testing"

	"github.com/kothd/kothd/engine"
)

// oddLauncher fails bot 1's decisions in odd games, like faultyEx.
type oddLauncher struct{}

func (oddLauncher) Launch(_ context.Context, _ int, at engine.At, bot int, _ []string, _ any, _ func(string) *engine.Fault) (string, *engine.Fault) {
	if bot == 1 && at.Game%2 == 1 {
		return "", &engine.Fault{Outcome: engine.Crash, Detail: "game " + string(rune('0'+at.Game))}
	}
	return "0", nil
}
func (oddLauncher) EndUnit(int)        {}
func (oddLauncher) Command(int) string { return "./bot" }

// oddDirs is the dirfiles version, and keeps one file per bot.
type oddDirs struct{ kept map[int][]byte }

func (oddDirs) Setup(int, int, []string) error { return nil }
func (oddDirs) Deliver(int, string) error      { return nil }
func (oddDirs) LastExit(int) int               { return 0 }
func (oddDirs) Run(_ context.Context, at engine.At, bot int, _ bool) (string, *engine.Fault) {
	if bot == 1 && at.Game%2 == 1 {
		return "", &engine.Fault{Outcome: engine.Crash, Detail: "game " + string(rune('0'+at.Game))}
	}
	return "", nil
}
func (d oddDirs) Keep(bot int) ([]byte, error)       { return d.kept[bot], nil }
func (d oddDirs) Restore(bot int, kept []byte) error { d.kept[bot] = kept; return nil }

// The argv and dirfiles protocols' decisions, and those the engine settles itself, are
// counted under the game they name, like pyclass calls: at a checkpoint after 4 games the
// accounting is that of games 0..3 whatever else was in flight, its first fault the first
// in game order; a decision of no game counts at once. The dirfiles wrapper passes the
// bots' kept files on.
func TestLedgerCountsEveryProtocol(t *testing.T) {
	ctx := context.Background()
	bots := []engine.Entrant{{Name: "A"}, {Name: "B"}}
	dirs := oddDirs{kept: map[int][]byte{}}
	for _, proto := range []string{"argv", "dirfiles"} {
		r := engine.Run{Bots: bots}
		if proto == "argv" {
			r.Launch = oddLauncher{}
		} else {
			r.Files = dirs
		}
		l := connectLedger(&r, nil)
		decide := func(games ...int) {
			for _, g := range games {
				for b := range bots {
					at := engine.At{Game: g, Turn: 1}
					if proto == "argv" {
						r.Launch.Launch(ctx, 0, at, b, nil, map[string]int{"game": g}, nil)
					} else {
						r.Files.Run(ctx, at, b, true)
					}
				}
				r.Fault.Record(engine.At{Game: g}, 0, nil, nil) // a built-in bot's good decision
			}
		}
		decide(5, 3, 0, 4, 1, 2)
		r.Fault.Record(engine.At{Game: engine.NoGame}, 0, nil, nil)
		at4 := l.fold(4)
		if n := at4[0].Counts[engine.OK]; n != 4+4+1 {
			t.Errorf("%s: bot 0 has %d good decisions after 4 games, want 9 (4 its own, 4 the engine's, 1 of no game)", proto, n)
		}
		if c, f := at4[1].Counts[engine.Crash], at4[1].First; c != 2 || f == nil || f.Detail != "game 1" {
			t.Errorf("%s: bot 1 after 4 games: %d crashes, first %+v; want 2, game 1", proto, c, f)
		}
		if proto == "dirfiles" {
			k, ok := r.Files.(engine.DirKeeper)
			if !ok {
				t.Fatal("the ledger hides the protocol's kept files")
			}
			if err := k.Restore(1, []byte("notes")); err != nil || string(dirs.kept[1]) != "notes" {
				t.Errorf("kept files not passed on: %q %v", dirs.kept[1], err)
			}
		}
	}
}
