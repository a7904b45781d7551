package cron

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
)

// fakeGame is a game played entirely in Go, registered only in tests, so the cycle's own
// logic (skip, republish, resume, changes, validation bookkeeping) is tested in seconds
// instead of through bot processes. It speaks the argv protocol but never launches its
// bots: answers are prepared (named after their title) and entered as usual; each game
// every bot draws a score from the game's seed and its name, so the same seed gives the
// same table. A bot whose name starts with "Sleeper" fails validation; one whose name
// starts with "Faulty" gets a fault in every game (the rules' default: zero points).
var fakeGame = &engine.Game{
	Name:        "fake",
	Protocol:    engine.Argv,
	Games:       10,
	Concurrency: 1,
	Options:     func() any { return new(fakeOptions) },
	Baselines:   []string{"Dummy"},
	Play:        fakePlay,
	Validate: func(ctx context.Context, r engine.Run) error {
		if strings.HasPrefix(r.Bots[0].Name, "Sleeper") {
			return fmt.Errorf("it did not answer in a validation game: timeout")
		}
		return nil
	},
	Replay: func(ctx context.Context, r engine.Run, game int, trace func(string)) error {
		trace("Played again alone: the fake game's bots always decide the same; none may decide differently.")
		for i, b := range r.Bots {
			s, _ := fakeScore(r, game, i)
			trace(fmt.Sprintf("%s: %d points", b.Name, s))
		}
		return nil
	},
}

type fakeOptions struct {
	Bonus int `yaml:"bonus"` // added to every score
}

// fakeScore is bot i's score in game g of run r, and its fault if it has one.
func fakeScore(r engine.Run, g, i int) (int, *engine.Fault) {
	b := r.Bots[i]
	if strings.HasPrefix(b.Name, "Faulty") {
		return 0, &engine.Fault{Outcome: engine.Crash, Detail: "the fake game's Faulty bots always crash"}
	}
	return int(engine.SubSeed(engine.GameSeed(r.Seed, g), b.Name)%100) + engine.OptionsOf[fakeOptions](r).Bonus, nil
}

func fakePlay(ctx context.Context, r engine.Run) (*engine.Result, error) {
	res := &engine.Result{Columns: []string{"Points"}, Units: r.Games, UnitName: "games"}
	samples := &engine.Samples{Values: make([][]float64, r.Games)} // for the board's intervals
	res.Resample = samples
	total := make([]int, len(r.Bots))
	errs := make([]int, len(r.Bots))
	for g := range r.Games {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("fake: run interrupted: %w", err)
		}
		samples.Values[g] = make([]float64, len(r.Bots))
		for i := range r.Bots {
			s, f := fakeScore(r, g, i)
			if f != nil {
				errs[i]++
			}
			samples.Values[g][i] = float64(s)
			r.Fault.Record(i, f, map[string]int{"game": g})
			total[i] += s
		}
		if r.Progress != nil {
			r.Progress(g+1, r.Games)
		}
	}
	for i, b := range r.Bots {
		samples.Bots = append(samples.Bots, b.Name)
		res.Rows = append(res.Rows, engine.Row{Bot: b.Name, Baseline: b.Baseline, Score: float64(total[i]), Played: r.Games,
			Errors: errs[i], Cells: []string{fmt.Sprint(total[i])}})
	}
	sort.SliceStable(res.Rows, func(x, y int) bool { return res.Rows[x].Score > res.Rows[y].Score })
	res.Games = r.Games
	return res, nil
}

// withFakeGame makes every challenge of cy's config play the fake game (with the same
// answers, extraction and limits), registered beside the build's games.
func withFakeGame(t testing.TB, cy *Cycle) *Cycle {
	t.Helper()
	reg := all.Games()
	if err := reg.Register(fakeGame); err != nil {
		t.Fatal(err)
	}
	cy.Games = reg
	for i := range cy.Config.Challenges {
		cy.Config.Challenges[i].Engine, cy.Config.Challenges[i].Protocol = "fake", ""
		cy.Config.Challenges[i].Games = 0
	}
	return cy
}
