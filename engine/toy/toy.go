// Package toy is a sixth game, Highest Unique, that kothd does not register: the tests
// register it to show what adding a game takes (docs/adding-a-game.md): this one folder
// and one line in engine/all. Each round every bot picks a number from 1 to 10; the
// highest number nobody else picked scores its value; a game is five rounds.
package toy

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/kothd/kothd/engine"
)

//go:embed harness.py
var harness []byte

// Rounds is the number of rounds of a game.
const Rounds = 5

// Descriptor is Highest Unique as the host plays it.
var Descriptor = &engine.Game{
	Name:        "toy",
	Protocol:    engine.PyClass,
	Games:       100,
	Concurrency: 16,
	Baselines:   []string{"Ten", "Dice"},
	Harness:     &engine.Harness{Module: "toy", Source: harness, Competes: "a bot is a class deriving from Player", Decisions: []string{"pick"}},
	Play:        play,
	Validate: func(ctx context.Context, r engine.Run) error {
		_, err := games(ctx, r, 1, nil)
		return err
	},
	Replay: func(ctx context.Context, r engine.Run, game int, trace func(string)) error {
		trace("Played again alone with fresh bot processes: the seeds of the bots' random module are the run's game's; a bot that keeps class-level state across games may decide differently.")
		_, err := games(ctx, r, 1, func(_, round int, picks []int, winner int) {
			trace(fmt.Sprintf("round %d: picks %v, %s", round, picks, winnerText(r, winner, picks)))
		}, game)
		return err
	},
}

func winnerText(r engine.Run, winner int, picks []int) string {
	if winner < 0 {
		return "no unique number"
	}
	return fmt.Sprintf("%s scores %d", r.Bots[winner].Name, picks[winner])
}

// games plays n games (numbered from first[0], or 0) and returns each bot's points.
// Every game seeds each bot's random module from the game's seed and the harness keeps it
// per game, so a game replays alone.
func games(ctx context.Context, r engine.Run, n int, trace func(game, round int, picks []int, winner int), first ...int) ([][]int, error) {
	base := 0
	if len(first) > 0 {
		base = first[0]
	}
	points := make([][]int, n)
	err := engine.Lockstep{Exchanger: r.Calls, Concurrency: r.Concurrency}.Run(ctx, n, func(t *engine.Table) {
		g := base + t.Game
		pts := make([]int, len(r.Bots))
		for round := 1; round <= Rounds; round++ {
			calls := make([]engine.Call, len(r.Bots))
			for i := range calls {
				args := map[string]uint64{"round": uint64(round)}
				if round == 1 { // each game seeds the bot's random module afresh
					args["seed"] = engine.SubSeed(engine.GameSeed(r.Seed, g), r.Bots[i].Name)
				}
				calls[i] = engine.Call{Bot: i, Method: "pick", Args: args}
			}
			picks := make([]int, len(r.Bots))
			for i, rep := range t.Ask(calls...) {
				if rep.Fault == nil && json.Unmarshal(rep.Result, &picks[i]) == nil {
					continue
				}
				picks[i] = 0 // a fault: the rules' default, no number
			}
			w := winner(picks)
			if w >= 0 {
				pts[w] += picks[w]
			}
			if trace != nil {
				trace(g, round, picks, w)
			}
		}
		ends := make([]engine.Call, len(r.Bots))
		for i := range ends {
			ends[i] = engine.Call{Bot: i, Method: "end"}
		}
		t.Ask(ends...)
		points[t.Game] = pts
	})
	return points, err
}

// winner is the bot with the highest number nobody else picked, or -1.
func winner(picks []int) int {
	count := map[int]int{}
	for _, p := range picks {
		count[p]++
	}
	best := -1
	for i, p := range picks {
		if p > 0 && count[p] == 1 && (best < 0 || p > picks[best]) {
			best = i
		}
	}
	return best
}

func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	errs := make([]int, len(r.Bots))
	var mu sync.Mutex // games run in goroutines of their own
	pts, err := games(ctx, r, r.Games, func(_, _ int, picks []int, _ int) {
		mu.Lock()
		defer mu.Unlock()
		for i, p := range picks {
			if p == 0 {
				errs[i]++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	res := &engine.Result{Games: r.Games, Columns: []string{"Points"}}
	for i, b := range r.Bots {
		total := 0
		for _, g := range pts {
			total += g[i]
		}
		res.Rows = append(res.Rows, engine.Row{Bot: b.Name, Baseline: b.Baseline, Score: float64(total), Played: r.Games,
			Errors: errs[i], Cells: []string{fmt.Sprint(total)}})
	}
	sort.SliceStable(res.Rows, func(x, y int) bool { return res.Rows[x].Score > res.Rows[y].Score })
	return res, nil
}
