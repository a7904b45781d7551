// Package bankheist is the engine of "King of the Hill: Bank Heist" (codegolf question
// 115303), following the original controller (quintopia/BankHeist, bankheist.py) as
// summarised in docs/games/bankheist.md ("spec §n" below names a section of the rules kothd
// was written from).
//
// Bots are programs asked once per decision: the engine hands a Decider the 31 arguments of
// spec §1.3 and reads back a bet (round 1) or a decision (round 2). A contest is a number of
// independent tournaments of 1000–1100 games each; games within a tournament run one after
// another because credits carry over, so tournaments are what runs in parallel. Every
// tournament's seed is engine.GameSeed(master, index) and results are merged in index order,
// so the table does not depend on the number of workers.
//
// Within a game no two bots ever decide on the same information: every round-1 call carries
// the bets of everyone asked before it, every round-2 call the number of players who stayed
// in so far. Calls within a tournament are therefore strictly sequential.
package bankheist

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
)

// Call is one decision asked of one bot.
type Call struct {
	Bot        int // index into Config.Bots
	Tournament int
	Game       int      // game number within the tournament, 0-based (argument 1)
	RunGame    int      // the game's number in the run (Locate's numbering; engine.At.Game)
	Round      int      // 1: bet, 2: decision
	Args       []string // the 31 command-line arguments
}

// Decider asks bots for decisions. The descriptor's decider implements it over the argv
// protocol's engine.Launcher and the examples' Go strategies; tests implement it with Go functions.
//
// The answer is the bot's whole output; the engine strips surrounding whitespace and reads
// it by the rules. A Fault means the bot failed (the rules' default applies and the fault is
// counted), except a HostFault, which voids the game. A Decider that validates round-1
// answers itself may return a BadOutput fault for an unreadable bet; the effect is the same.
// Decide is called from one goroutine per tournament that is in flight.
type Decider interface {
	Decide(ctx context.Context, c Call) (string, *engine.Fault)
}

// tournamentEnder is a Decider that holds resources per tournament (the descriptor's: each
// tournament's copies of the bots' directories, engine.Launcher's units) and releases
// them when told the tournament is over.
type tournamentEnder interface {
	EndTournament(i int)
}

// DefaultGamesPerTournament is N of spec §5.1: a tournament lasts N to trunc(1.1 N) games.
const DefaultGamesPerTournament = 1000

// Config describes a contest.
//
// A challenge's `options:` block is decoded straight into a Config (engine.Game.Options):
// the fields with a yaml key are the block's; the others (yaml "-") are the run's, set by
// the engine, and refused in a config. The JSON names are the bot set's hash of the
// options (cron), so they stay as they were.
type Config struct {
	Bots []engine.Entrant `yaml:"-" json:"-"` // roster order (the initial order of the standings)
	Seed uint64           `yaml:"-" json:"-"` // master seed
	// Tournaments is the number of independent tournaments whose final credits are summed
	// (<= 0 means 1). A run plays max(1, games / GamesPerTournament).
	Tournaments int `yaml:"-" json:"-"`
	// GamesPerTournament is N (<= 0 means DefaultGamesPerTournament, the question's 1000):
	// the run's games (asked for, or the challenge's `games`) are played as max(1, games /
	// N) tournaments of N to 1.1 N games each; no number of games means one tournament.
	GamesPerTournament int `yaml:"games_per_tournament"`
	// Workers bounds the tournaments in flight at once (<= 0 means 1). It never changes the
	// results.
	Workers  int             `yaml:"-" json:"-"`
	Progress engine.Progress `yaml:"-" json:"-"` // optional; total is PlannedGames
	// GameLog, when set, receives the log of every game played (spec §2.11). It is called
	// from the tournament's goroutine.
	GameLog func(tournament, game int, text string) `yaml:"-" json:"-"`
	// Batches, when set, checkpoints the contest at tournament boundaries and resumes it
	// (engine.Batches; checkpoint.go).
	Batches *engine.Batches `yaml:"-" json:"-"`
}

func (c Config) norm() Config {
	c.Tournaments = max(c.Tournaments, 1)
	if c.GamesPerTournament <= 0 {
		c.GamesPerTournament = DefaultGamesPerTournament
	}
	c.Workers = min(max(c.Workers, 1), c.Tournaments)
	return c
}

// PlannedGames is the number of games the contest will play (each tournament's length is
// drawn from its seed before game 0).
func PlannedGames(c Config) int {
	c = c.norm()
	n := 0
	for i := range c.Tournaments {
		n += gamesIn(engine.GameSeed(c.Seed, i), c.GamesPerTournament)
	}
	return n
}

// Play runs the contest and returns the table: final credits summed over the tournaments.
// It fails only when ctx is cancelled (or a checkpoint cannot be written). With
// cfg.Batches, finished tournaments are folded in index order and checkpointed (a
// tournament is indivisible: its games share credits), and a resumed contest plays only
// the tournaments after its checkpoint.
func Play(ctx context.Context, cfg Config, d Decider) (*engine.Result, error) {
	cfg = cfg.norm()
	first := starts(cfg)
	gamesBefore := func(units int) int { return first[units] }
	start, err := cfg.Batches.StartUnit(cfg.Tournaments, gamesBefore)
	if err != nil {
		return nil, err
	}
	ts := make([]*tournament, cfg.Tournaments)
	if start > 0 {
		if err := restore(cfg, ts[:start], cfg.Batches.Resume.State); err != nil {
			return nil, err
		}
	}
	total := first[cfg.Tournaments]
	var mu sync.Mutex
	done := first[start]
	progress := func() {
		if cfg.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		cfg.Progress(done, total)
	}

	folded := start // tournaments in ts, in order; Fold calls add, state and sofar one at a time
	fold, run := engine.NewFold(ctx, cfg.Batches, start, cfg.Tournaments,
		func(i int, t *tournament) { ts[i], folded = t, i+1 },
		func() ([]byte, error) { return save(ts[:folded]) },
		func() *engine.Result { return table(cfg, ts[:folded]) })
	fold.CountGames(gamesBefore)
	firstErr := playRange(run, cfg, d, first, start, cfg.Tournaments, progress, fold.Add)
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	stopped, err := fold.End(firstErr)
	if err != nil {
		return nil, err
	}
	if stopped {
		return table(cfg, ts[:folded]), nil
	}
	return table(cfg, ts), nil
}

// starts numbers the tournaments' games in the run: first[i] is the run's number of
// tournament i's game 0; first[cfg.Tournaments] the run's games.
func starts(cfg Config) []int {
	first := make([]int, cfg.Tournaments+1)
	for i := range cfg.Tournaments {
		first[i+1] = first[i] + gamesIn(engine.GameSeed(cfg.Seed, i), cfg.GamesPerTournament)
	}
	return first
}

// playRange plays tournaments [lo, hi) of cfg's contest, cfg.Workers at a time, and hands
// each finished one to add (in any order); first[i] is the run's number of tournament i's
// game 0. It stops feeding tournaments when ctx ends and returns the first error, in
// tournament order.
func playRange(ctx context.Context, cfg Config, d Decider, first []int, lo, hi int, progress func(), add func(int, *tournament)) error {
	names := make([]string, len(cfg.Bots))
	for i, b := range cfg.Bots {
		names[i] = b.Name
	}
	errs := make([]error, hi)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(cfg.Workers, hi-lo) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := newTournament(i, first[i], engine.GameSeed(cfg.Seed, i), names, cfg.GamesPerTournament, d)
				t.log = cfg.GameLog
				errs[i] = t.run(ctx, progress)
				if e, ok := d.(tournamentEnder); ok {
					e.EndTournament(i)
				}
				if errs[i] == nil {
					add(i, t)
				}
			}
		}()
	}
feed:
	for i := lo; i < hi; i++ {
		select {
		case next <- i:
		case <-ctx.Done(): // stopped early, or the caller's context ended
			break feed
		}
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// table merges the tournaments, in index order, into the contest table (spec §6).
func table(cfg Config, ts []*tournament) *engine.Result {
	n := len(cfg.Bots)
	score := make([]int64, n)
	wins := make([]int, n)
	faults := make([]int, n)
	res := &engine.Result{Columns: []string{"Final Score", "Tournaments Won", "Mean Final Credits"}, Legend: map[string]string{
		"Final Score":        "credits at the end of each tournament, summed over the tournaments",
		"Tournaments Won":    "tournaments ended with the most credits (a tie counts for every tied bot)",
		"Mean Final Credits": "credits at the end of a tournament, on average",
	}}
	var s sat
	saturated := 0
	var hostFault string
	for _, t := range ts {
		res.Games += t.played
		res.Voided += t.voided
		saturated += t.sat.n
		if hostFault == "" {
			hostFault = t.hostFault
		}
		var best int64 = -1
		for _, b := range t.bots {
			best = max(best, b.credits)
		}
		for i, b := range t.bots {
			score[i] = s.add(score[i], b.credits)
			faults[i] += t.faults[i]
			if n > 0 && b.credits == best {
				wins[i]++
			}
		}
	}
	// Ties keep the first tournament's final order, which for a single tournament is the
	// original's table order (credits descending, ties in standings order).
	order := []int{}
	if len(ts) > 0 {
		order = append(order, ts[0].order...)
	}
	sort.SliceStable(order, func(i, j int) bool { return score[order[i]] > score[order[j]] })
	for _, i := range order {
		res.Rows = append(res.Rows, engine.Row{
			Bot: cfg.Bots[i].Name, Baseline: cfg.Bots[i].Baseline,
			Score: float64(score[i]), Played: res.Games, Wins: wins[i], Errors: faults[i],
			Cells: []string{
				strconv.FormatInt(score[i], 10),
				strconv.Itoa(wins[i]),
				strconv.FormatInt(score[i]/int64(len(ts)), 10),
			},
		})
	}
	// The publisher bootstraps over tournaments: credits carry from game to game within
	// one, so the tournament is the independent unit.
	smp := &engine.Samples{}
	for _, b := range cfg.Bots {
		smp.Bots = append(smp.Bots, b.Name)
	}
	for _, t := range ts {
		v := make([]float64, n)
		for i, b := range t.bots {
			v[i] = float64(b.credits)
		}
		smp.Values = append(smp.Values, v)
	}
	res.Units, res.UnitName, res.Resample = len(ts), "tournaments", smp
	res.Summary = append(res.Summary, fmt.Sprintf("%d tournament(s) of %d–%d games, %d games played; the score is the sum of each bot's credits after the last game of every tournament.",
		len(ts), cfg.GamesPerTournament, int(1.1*float64(cfg.GamesPerTournament)), res.Games))
	if res.Voided > 0 {
		res.Summary = append(res.Summary, fmt.Sprintf("%d game(s) voided by host faults (first: %s).", res.Voided, hostFault))
	}
	if saturated > 0 {
		res.Summary = append(res.Summary, fmt.Sprintf("%d integer result(s) saturated at ±(2^63 − 1).", saturated))
	}
	if len(ts) > 1 {
		res.Appendix = appendix(cfg, ts)
	}
	return res
}

// appendix lists each tournament's winner (the first 50 tournaments).
func appendix(cfg Config, ts []*tournament) string {
	var b strings.Builder
	b.WriteString("| Tournament | Games | Winner | Credits |\n|---:|---:|---|---:|\n")
	for _, t := range ts[:min(len(ts), 50)] {
		if len(t.order) == 0 {
			continue
		}
		w := t.order[0]
		fmt.Fprintf(&b, "| %d | %d | %s | %d |\n", t.index, t.played, mdtext.Cell(cfg.Bots[w].Name, 100), t.bots[w].credits) // an answer's title: participants' words
	}
	return b.String()
}
