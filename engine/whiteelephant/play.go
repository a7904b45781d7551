package whiteelephant

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Options configure a tournament. A challenge's `options:` block is decoded straight into
// them (engine.Game.Options): the fields with a yaml key are the block's; the others
// (yaml "-") are the run's, set by the engine, and refused in a config. The JSON names are
// the bot set's hash of the options (cron), so they stay as they were.
type Options struct {
	Seed uint64 `yaml:"-" json:"-"` // master seed; game g plays with engine.GameSeed(Seed, g)
	// Games is the number of independent games (spec §5, engine addition); <= 0 means one,
	// the original contest. With several, the table shows mean scores and wins.
	Games int `yaml:"-" json:"-"`
	// Concurrency is how many games are in flight at once (engine.Lockstep); <= 0 means 1.
	// It is part of what makes a run with class-level state reproducible.
	Concurrency  int             `yaml:"-" json:"-"`
	WinningScore float64         `yaml:"winning_score"` // <= 0 means 500 (spec §2.1)
	Progress     engine.Progress `yaml:"-" json:"-"`
	// OnFault, when set, receives the policy faults the engine resolved by opening a
	// present (an unhashable answer, a comparison that raised: spec §4). The runner never
	// sees them as faults, because the harness answered. It may be called concurrently.
	OnFault func(bot int, f *engine.Fault, input any) `yaml:"-" json:"-"`
	// Trace, when set, receives the original driver's verbose log of every game (spec
	// §2.8), line by line. It may be called concurrently for different games.
	Trace func(game int, line string) `yaml:"-" json:"-"`
}

// Play runs a tournament of White Elephant over ex. bots are the competitors in the order
// of spec §1.3 (built-ins first); a later bot whose name is already taken is excluded and
// reported (spec §1.3, engine addition). Bot faults never stop the run: they disqualify or
// open a present as the rules say; a host fault voids the game it happened in.
func Play(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options) (*engine.Result, error) {
	if len(bots) == 0 {
		return nil, errors.New("white elephant: no bots to play")
	}
	competitors, excluded := uniqueNames(bots)
	games := max(opts.Games, 1)
	target := opts.WinningScore
	if target <= 0 {
		target = DefaultWinningScore
	}
	played := make([]*game, games)
	ls := engine.Lockstep{Exchanger: ex, Concurrency: opts.Concurrency, Groups: engine.TickGroups, Progress: opts.Progress}
	err := ls.Run(ctx, games, func(t *engine.Table) {
		seed := engine.GameSeed(opts.Seed, t.Game)
		g := newGame(t, randDealer{engine.NewRand(seed)}, bots, competitors, target)
		g.onFault = opts.OnFault
		if opts.Trace != nil {
			g.trace = func(line string) { opts.Trace(t.Game, line) }
		}
		g.run(seed)
		played[t.Game] = g
	})
	if err != nil {
		return nil, fmt.Errorf("white elephant: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("white elephant: run interrupted: %w", err)
	}
	return tabulate(bots, competitors, excluded, played, opts.Games > 1, target), nil
}

// uniqueNames keeps the first bot of every name (spec §1.3, engine addition).
func uniqueNames(bots []engine.Entrant) (keep []int, excluded []string) {
	seen := map[string]int{}
	for i, b := range bots {
		if first, dup := seen[b.Name]; dup {
			excluded = append(excluded, fmt.Sprintf("%s (competitor %d) is excluded: the class name is already used by competitor %d.", b.Name, i+1, first+1))
			continue
		}
		seen[b.Name] = i
		keep = append(keep, i)
	}
	return keep, excluded
}

// randDealer makes the draws of spec §3 with the engine's generator.
type randDealer struct{ r *rand.Rand }

func (d randDealer) names(pool []string, n int) []string {
	p := append([]string(nil), pool...)
	for i := 0; i < n; i++ {
		j := i + d.r.IntN(len(p)-i)
		p[i], p[j] = p[j], p[i]
	}
	return p[:n]
}

func (d randDealer) order(n int) []int { return d.r.Perm(n) }
func (d randDealer) value() float64    { return d.r.Float64() }

// line is one competitor's totals over the scored games.
type line struct {
	bot                              int
	score, mean                      float64
	games, wins, rounds, dqs, faults int
	reason                           string
}

// tabulate builds the leaderboard (spec §6): final score of the single game, or with
// several games the mean final score and the number of games won.
func tabulate(bots []engine.Entrant, competitors []int, excluded []string, played []*game, multi bool, target float64) *engine.Result {
	res := &engine.Result{}
	lines := make([]*line, len(competitors))
	byBot := map[int]*line{}
	for i, b := range competitors {
		lines[i] = &line{bot: b}
		byBot[b] = lines[i]
	}
	var rounds, abandoned int
	var voids []string
	for gi, g := range played {
		if g.void != "" {
			res.Voided++
			voids = append(voids, fmt.Sprintf("Game %d was voided (not the bots' fault): %s", gi+1, g.void))
			continue
		}
		res.Games++
		rounds += g.played
		abandoned += g.voided
		for _, b := range g.members {
			l := byBot[b]
			l.games++
			l.score += g.score[b]
			l.rounds += g.rounds[b]
			l.faults += g.faults[b]
			if g.dq[b] != "" {
				l.dqs++
				if l.reason == "" {
					l.reason = g.dq[b]
				}
			}
		}
		if w := g.winner(); w >= 0 {
			byBot[w].wins++
		}
	}
	for _, l := range lines {
		l.mean = l.score
		if multi && l.games > 0 {
			l.mean = l.score / float64(l.games)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].mean > lines[j].mean })
	if multi {
		rescore(res, bots, lines, played)
	}

	res.Legend = map[string]string{
		"Score":         "value of the present held at the end of each round, summed over the rounds",
		"Mean score":    "Score per game",
		"Wins":          "games ended with the highest score",
		"Games":         "games played",
		"Rounds played": "rounds the bot took part in",
		"Disqualified":  "whether, and why, the bot was disqualified",
	}
	if multi {
		res.Columns = []string{"Mean score", "Wins", "Games", "Rounds played", "Disqualified"}
	} else {
		res.Columns = []string{"Score", "Rounds played", "Disqualified"}
	}
	// Faults are Row.Errors: the publisher shows them beside the runner's counts.
	for _, l := range lines {
		dq := "no"
		switch {
		case l.dqs > 0 && multi:
			dq = fmt.Sprintf("in %d of %d games: %s", l.dqs, l.games, l.reason)
		case l.dqs > 0:
			dq = "yes: " + l.reason
		}
		row := engine.Row{Bot: bots[l.bot].Name, Baseline: bots[l.bot].Baseline, Score: l.mean,
			Played: l.games, Wins: l.wins, Errors: l.faults}
		if multi {
			row.Cells = []string{fmt.Sprintf("%.3f", l.mean), fmt.Sprint(l.wins), fmt.Sprint(l.games), fmt.Sprint(l.rounds), dq}
		} else {
			row.Cells = []string{fmt.Sprintf("%.3f", l.mean), fmt.Sprint(l.rounds), dq}
		}
		res.Rows = append(res.Rows, row)
	}

	if multi {
		res.Summary = append(res.Summary, fmt.Sprintf("%d games to %s points (%d voided), %d rounds in all, %d abandoned after a disqualification.",
			len(played), pyFloat(target), res.Voided, rounds, abandoned))
		if res.Games > 0 {
			best := lines[0]
			for _, l := range lines {
				if l.wins > best.wins {
					best = l
				}
			}
			res.Summary = append(res.Summary, fmt.Sprintf("Most wins: %s (%d of %d games).", bots[best.bot].Name, best.wins, res.Games))
		}
	} else if res.Games == 1 {
		g := played[0]
		res.Summary = append(res.Summary, fmt.Sprintf("One game to %s points: %d rounds played, %d abandoned after a disqualification.", pyFloat(target), g.played, g.voided))
		res.Summary = append(res.Summary, fmt.Sprintf("[!!!] %s is the winner!", bots[g.winner()].Name))
		for _, b := range g.members {
			if g.dq[b] != "" {
				res.Summary = append(res.Summary, fmt.Sprintf("%s has been disqualified. Reason: %s", bots[b].Name, g.dq[b]))
			}
		}
		res.Appendix = printout(res.Rows, bots[g.winner()].Name)
	}
	res.Summary = append(res.Summary, voids...)
	res.Summary = append(res.Summary, excluded...)
	return res
}

// printout is the final table as the original driver printed it (spec §6).
func printout(rows []engine.Row, winner string) string {
	var b strings.Builder
	b.WriteString("The original controller's printout:\n\n```\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "%2d. %-20s%7.3f\n", i+1, r.Bot, r.Score)
	}
	fmt.Fprintf(&b, "[!!!] %s is the winner!\n```\n", winner)
	return b.String()
}

// rescore lets the publisher bootstrap over the scored games (contests): each bot's mean
// final score over the resampled games (every competitor plays every game).
func rescore(res *engine.Result, bots []engine.Entrant, lines []*line, played []*game) {
	smp := &engine.Samples{Mean: true}
	for _, l := range lines {
		smp.Bots = append(smp.Bots, bots[l.bot].Name)
	}
	for _, g := range played {
		if g.void != "" {
			continue
		}
		v := make([]float64, len(lines))
		for k, l := range lines {
			v[k] = g.score[l.bot]
		}
		smp.Values = append(smp.Values, v)
	}
	res.Units, res.UnitName, res.Resample = len(smp.Values), "games", smp
}
