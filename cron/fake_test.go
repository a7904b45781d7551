package cron_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kothd/kothd/cron"
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
	Batched:     true,
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
	// Unscored games are played but left out of the result, as Mafia leaves out its
	// abandoned games.
	Unscored int `yaml:"unscored"`
}

// fakeScore is bot i's score in game g of run r, and its fault if it has one.
func fakeScore(r engine.Run, g, i int) (int, *engine.Fault) {
	b := r.Bots[i]
	if strings.HasPrefix(b.Name, "Faulty") {
		return 0, &engine.Fault{Outcome: engine.Crash, Detail: "the fake game's Faulty bots always crash"}
	}
	return int(engine.SubSeed(engine.GameSeed(r.Seed, g), b.Name)%100) + engine.OptionsOf[fakeOptions](r).Bonus + fakeSkill(b.Name), nil
}

// fakeSkill is N for a bot named "Skill<N>…", else 0.
func fakeSkill(name string) int {
	rest, ok := strings.CutPrefix(name, "Skill")
	if !ok {
		return 0
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

// fakeTally is the fake game's state: every game's points (its checkpoint, and the
// bootstrap's samples) and each bot's faults.
type fakeTally struct {
	Points [][]int // Points[game][bot]
	Errs   []int
}

func fakePlay(ctx context.Context, r engine.Run) (*engine.Result, error) {
	t := &fakeTally{Errs: make([]int, len(r.Bots))}
	start, err := r.Batches.Start(r.Games)
	if err != nil {
		return nil, err
	}
	if start > 0 {
		if err := json.Unmarshal(r.Batches.Resume.State, t); err != nil || len(t.Points) != start {
			return nil, fmt.Errorf("fake: checkpoint unreadable: %v", err)
		}
	}
	state := func() ([]byte, error) { return json.Marshal(t) }
	sofar := func() *engine.Result { return t.result(r) }
	fold, playCtx := engine.NewFold(ctx, r.Batches, start, r.Games, func(_ int, pts []int) { t.Points = append(t.Points, pts) }, state, sofar)
	for g := start; g < r.Games && playCtx.Err() == nil; g++ {
		pts := make([]int, len(r.Bots))
		for i := range r.Bots {
			s, f := fakeScore(r, g, i)
			if f != nil {
				t.Errs[i]++
			}
			r.Fault.Record(engine.At{Game: g}, i, f, map[string]int{"game": g})
			pts[i] = s
		}
		fold.Add(g, pts)
		if r.Progress != nil {
			r.Progress(g+1, r.Games)
		}
	}
	var playErr error
	if err := ctx.Err(); err != nil {
		playErr = fmt.Errorf("fake: run interrupted: %w", err)
	}
	if _, err := fold.End(playErr); err != nil {
		return nil, err
	}
	return t.result(r), nil
}

// result is the table of the games tallied, with their points as the bootstrap's samples.
func (t *fakeTally) result(r engine.Run) *engine.Result {
	games := len(t.Points)
	res := &engine.Result{Columns: []string{"Points"}, Games: max(games-engine.OptionsOf[fakeOptions](r).Unscored, 0), Units: games, UnitName: "games"}
	smp := &engine.Samples{}
	for _, b := range r.Bots {
		smp.Bots = append(smp.Bots, b.Name)
	}
	total := make([]int, len(r.Bots))
	for _, pts := range t.Points {
		v := make([]float64, len(pts))
		for i, p := range pts {
			total[i] += p
			v[i] = float64(p)
		}
		smp.Values = append(smp.Values, v)
	}
	res.Resample = smp
	for i, b := range r.Bots {
		res.Rows = append(res.Rows, engine.Row{Bot: b.Name, Baseline: b.Baseline, Score: float64(total[i]), Played: games,
			Errors: t.Errs[i], Cells: []string{fmt.Sprint(total[i])}})
	}
	sort.SliceStable(res.Rows, func(x, y int) bool { return res.Rows[x].Score > res.Rows[y].Score })
	return res
}

// withFakeGame makes every challenge of cy's config play the fake game (with the same
// answers, extraction and limits), registered beside the build's games.
func withFakeGame(t testing.TB, cy *cron.Cycle) *cron.Cycle {
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
