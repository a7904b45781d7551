package ruins

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// Options configure a tournament (§5.1). Zero values take the defaults. A challenge's
// `options:` block is decoded straight into them (engine.Game.Options): the fields with a
// yaml key are the block's; the others (yaml "-") are the run's, set by the engine, and
// refused in a config. The JSON names are the bot set's hash of the options (cron), so
// they stay as they were.
type Options struct {
	// SeedString seeds the tournament generator T, like the original's -s option
	// (e.g. "K48XMESC"). Required; SeedString(uint64) derives one from a run seed (the
	// engine does when a challenge sets none, and shows it in the leaderboard's summary).
	SeedString string `yaml:"seed_string"`
	GameSize   int    `yaml:"game_size"`  // players per game, default 10
	PoolGames  int    `yaml:"pool_games"` // pool games per bot when there are more than GameSize bots, default 20
	Lead       int    `yaml:"lead"`       // the finals stop when the leader is this far ahead, default 50
	// MaxFinals: the finals stop after this many games, default 500; a run's number of
	// games (asked for, or the challenge's `games`) overrides it.
	MaxFinals int `yaml:"max_finals"`
	// Concurrency is how many games run at once (the pool phase: poolFactor times as
	// many). The finals are played ahead of the stopping rule (their seatings and seeds do
	// not depend on results), a new one starting as soon as one ends; games after the one
	// that meets the rule are discarded. Default 32.
	Concurrency int             `yaml:"-" json:"-"`
	Progress    engine.Progress `yaml:"-" json:"-"`
	// Log, when set, receives every game's log lines (§2.8), by game index.
	Log func(game int, line string) `yaml:"-" json:"-"`
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.GameSize, GameSize)
	def(&o.PoolGames, 20)
	def(&o.Lead, 50)
	def(&o.MaxFinals, 500)
	def(&o.Concurrency, 32)
	return o
}

// seedAlphabet is the original's alphabet for generated seed strings.
const seedAlphabet = "0123456789ABCDEFGHJKLMNPQRSTVWXY"

// SeedString derives a seed string in the original's alphabet from a run seed: 13
// characters, all 64 bits of a one-way derivation (the original's 8 would leave 2^40
// strings to try against what a bot sees; see docs/trust.md).
func SeedString(seed uint64) string {
	x := engine.SubSeed(seed, "ruins seed string")
	b := make([]byte, 13)
	for i := range b {
		b[i] = seedAlphabet[x&31]
		x >>= 5
	}
	return string(b)
}

// gameSpec is one scheduled game: the seating and the seed drawn from T.
type gameSpec struct {
	seats []Seat
	seed  *big.Int
}

// schedule draws a game's seating and seed from T (§3.5): it shuffles seats in place, then
// draws the 1337-bit game seed. The spec keeps a copy of the seating.
func schedule(t *pyrand.Rand, seats []Seat) gameSpec {
	t.Shuffle(len(seats), func(i, j int) { seats[i], seats[j] = seats[j], seats[i] })
	return gameSpec{seats: slices.Clone(seats), seed: t.GetRandBits(1337)}
}

// dealPool deals the pool phase (§5.1 steps 1–2): rounds shuffles of the bot list, groups
// of size distinct bots, leftovers carried to the next round. With the default sizes every
// bot plays exactly rounds games.
func dealPool(t *pyrand.Rand, bots []Seat, size, rounds int) []gameSpec {
	p := slices.Clone(bots)
	var games []gameSpec
	var l []Seat
	// A pool game seats a shuffled copy of its group.
	play := func(group []Seat) { games = append(games, schedule(t, slices.Clone(group))) }
	for range rounds {
		t.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		group := l
		l = nil
		for _, x := range p {
			for len(group) >= size {
				play(group[:size])
				group = group[size:]
			}
			if slices.Contains(group, x) {
				l = append(l, x)
			} else {
				group = append(group, x)
			}
		}
		l = append(l, group...)
		for len(l) >= size {
			play(l[:size])
			l = l[size:]
		}
	}
	return games
}

// tournament accumulates a run.
type tournament struct {
	ctx     context.Context
	ex      engine.Exchanger
	bots    []engine.Entrant
	opts    Options
	next    int // index of the next game of the run
	planned int // for progress
	errs    []int
	played  []int
	// discarded are the run's game numbers (engine.Call.Game) after the final that met
	// the stopping rule, started or not: whatever they did is not part of the result.
	discarded []int
	wins      []int
	scored    int
	voided    int
	voids     []string
}

// poolFactor is how many times Options.Concurrency games the pool phase plays at once.
const poolFactor = 4

// run plays specs concurrently as games next, next+1, … and returns their results.
func (tr *tournament) run(specs []gameSpec) ([]GameResult, error) {
	base := tr.next
	tr.next += len(specs)
	out := make([]GameResult, len(specs))
	// Nothing here is speculative (every pool game counts, unlike the finals after the one
	// that meets the stopping rule), so the pool plays more games at once than the finals:
	// each tick then brings a bot poolFactor times as many calls, and the cost of a tick (the
	// wake-ups, the pipe, the harness's decode) is spread over more decisions.
	ls := engine.Lockstep{Exchanger: offsetExchanger{tr.ex, base}, Concurrency: poolFactor * tr.opts.Concurrency}
	if p := tr.opts.Progress; p != nil {
		ls.Progress = func(done, _ int) { p(base+done, max(tr.planned, base+done)) }
	}
	err := ls.Run(tr.ctx, len(specs), func(t *engine.Table) {
		var log func(string)
		if l := tr.opts.Log; l != nil {
			game := base + t.Game
			log = func(s string) { l(game, s) }
		}
		out[t.Game] = PlayGame(t, specs[t.Game].seats, specs[t.Game].seed, log)
	})
	if err != nil {
		return nil, err
	}
	if err := tr.ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// rolling plays up to limit games as games next, next+1, …, conc at a time, until fold
// says stop. Each game's spec is drawn (next) when it starts, in game order; results are
// folded in game order, each once, and the game that fold stops at ends the phase: games
// after it stop at their next turn and are discarded, later ones never start. So the
// games that count are those an unhurried run would have played, whatever the
// concurrency, and a free slot takes the next game at once instead of waiting for a whole
// batch to finish.
func (tr *tournament) rolling(limit, conc int, next func() gameSpec, fold func(k int, r GameResult) bool) error {
	base := tr.next
	tr.next += limit
	var mu sync.Mutex
	var specs []gameSpec
	spec := func(k int) gameSpec {
		mu.Lock()
		defer mu.Unlock()
		for len(specs) <= k {
			specs = append(specs, next())
		}
		return specs[k]
	}
	done := map[int]GameResult{}
	folded, stopAt := 0, -1
	stopped := func(k int) bool {
		mu.Lock()
		defer mu.Unlock()
		return stopAt >= 0 && k > stopAt
	}
	ls := engine.Lockstep{Exchanger: offsetExchanger{tr.ex, base}, Concurrency: conc}
	if p := tr.opts.Progress; p != nil {
		ls.Progress = func(done, _ int) { p(base+done, max(tr.planned, base+done)) }
	}
	err := ls.Run(tr.ctx, limit, func(t *engine.Table) {
		k := t.Game
		if stopped(k) {
			return
		}
		s := spec(k)
		var log func(string)
		if l := tr.opts.Log; l != nil {
			log = func(line string) { l(base+k, line) }
		}
		r := playGame(t, s.seats, s.seed, log, gameHooks{stop: func() bool { return stopped(k) }})
		mu.Lock()
		defer mu.Unlock()
		if stopAt >= 0 && k > stopAt {
			return
		}
		done[k] = r
		for stopAt < 0 {
			r, ok := done[folded]
			if !ok {
				break
			}
			delete(done, folded)
			if fold(folded, r) {
				stopAt = folded
			}
			folded++
		}
	})
	if err != nil {
		return err
	}
	if stopAt >= 0 {
		for k := stopAt + 1; k < limit; k++ {
			tr.discarded = append(tr.discarded, base+k)
		}
	}
	return tr.ctx.Err()
}

// count books a game that counts (scored or voided) and returns whether it was scored.
func (tr *tournament) count(game int, r GameResult) bool {
	for bot, n := range r.Faults {
		if bot >= 0 {
			tr.errs[bot] += n
		}
	}
	if r.Voided {
		tr.voided++
		tr.voids = append(tr.voids, fmt.Sprintf("game %d voided: %s", game, r.Why))
		return false
	}
	tr.scored++
	for p, s := range r.Ranked {
		if b := s.Adv.Bot; b >= 0 {
			tr.played[b]++
			if p == 0 && s.Points > 0 {
				tr.wins[b]++
			}
		}
	}
	return true
}

// Play runs a tournament: the pool phase when there are more than GameSize bots, then the
// finals (§5). Bot index in every engine.Call is the index in bots; the order of bots is
// the competitor order that breaks ties (the original's module loading order).
func Play(ctx context.Context, ex engine.Exchanger, bots []engine.Entrant, opts Options) (*engine.Result, error) {
	opts = opts.withDefaults()
	if opts.SeedString == "" {
		return nil, errors.New("ruins: a tournament seed string is required")
	}
	tr := &tournament{ctx: ctx, ex: ex, bots: bots, opts: opts,
		errs: make([]int, len(bots)), played: make([]int, len(bots)), wins: make([]int, len(bots))}
	res := &engine.Result{Summary: []string{"Seed: " + opts.SeedString}}
	if len(bots) == 0 {
		res.Summary = append(res.Summary, "No bots: no games played.")
		return res, nil
	}
	T := pyrand.NewString(opts.SeedString)
	all := make([]Seat, len(bots))
	for i, b := range bots {
		all[i] = Seat{Class: b.Name, Bot: i}
	}

	// Pool phase.
	var pool []int // pool score per bot, nil when no pool ran
	finalists := all
	if len(bots) > opts.GameSize {
		specs := dealPool(T, all, opts.GameSize, opts.PoolGames)
		tr.planned = len(specs) + opts.MaxFinals
		results, err := tr.run(specs)
		if err != nil {
			return nil, fmt.Errorf("ruins pool phase: %w", err)
		}
		pool = make([]int, len(bots))
		for k, r := range results {
			if tr.count(k, r) {
				for _, s := range r.Ranked {
					if s.Adv.Bot >= 0 {
						pool[s.Adv.Bot] += s.Points
					}
				}
			}
		}
		finalists = rankPool(all, pool, opts.GameSize)
		res.Summary = append(res.Summary, fmt.Sprintf("Pool: %d games, %d per bot; the top %d go to the finals.", len(specs), opts.PoolGames, opts.GameSize))
	} else {
		tr.planned = opts.MaxFinals
	}
	final := fillTable(finalists, opts.GameSize)
	if d := len(final) - len(finalists); d > 0 {
		res.Summary = append(res.Summary, fmt.Sprintf("Filled up with %d Drunkards (never scored).", d))
	}

	// Finals.
	score := make([]int, len(bots))
	recorded := len(finalists) // Drunkards' points are never recorded
	finals, scoredFinals, why := 0, 0, ""
	var finalGames []GameResult // scored finals, for the publisher's bootstrap
	conc := opts.Concurrency
	if recorded < 2 {
		conc = 1 // only the first game will count
	}
	first := tr.next
	err := tr.rolling(opts.MaxFinals, conc, func() gameSpec {
		return schedule(T, final) // the shuffled order carries over
	}, func(k int, r GameResult) bool {
		scored := tr.count(first+k, r)
		finals++ // voided games count against the limit too, so a broken host ends the run
		if scored {
			scoredFinals++
			finalGames = append(finalGames, r)
			for _, s := range r.Ranked {
				if s.Adv.Bot >= 0 {
					score[s.Adv.Bot] += s.Points
				}
			}
		}
		why = stopReason(scored, finals, recorded, finalists, score, opts)
		return why != ""
	})
	if err != nil {
		return nil, fmt.Errorf("ruins finals: %w", err)
	}
	res.Summary = append(res.Summary, fmt.Sprintf("Final: %d games; %s.", scoredFinals, why))
	if tr.voided > 0 {
		res.Summary = append(res.Summary, fmt.Sprintf("%d games voided by host faults.", tr.voided))
	}
	res.Games, res.Voided, res.Discarded = tr.scored, tr.voided, tr.discarded
	tr.table(res, pool, finalists, score, scoredFinals)
	tr.rescore(res, finalGames)
	return res, nil
}

// rescore lets the publisher bootstrap over the scored final games: a finalist's score is
// its points summed over them; bots the pool eliminated score nothing in the finals. (The
// finals stop on a lead, so resampled runs are a little less decisive than the real one.)
func (tr *tournament) rescore(res *engine.Result, finals []GameResult) {
	smp := &engine.Samples{}
	for _, b := range tr.bots {
		smp.Bots = append(smp.Bots, b.Name)
	}
	for _, g := range finals {
		v := make([]float64, len(tr.bots))
		for _, s := range g.Ranked {
			if s.Adv.Bot >= 0 {
				v[s.Adv.Bot] += float64(s.Points)
			}
		}
		smp.Values = append(smp.Values, v)
	}
	res.Units, res.UnitName, res.Resample = len(finals), "final games", smp
}

// rankPool returns the size finalists: the bots by pool score, ties in competitor order.
func rankPool(all []Seat, pool []int, size int) []Seat {
	ranked := slices.Clone(all)
	sort.SliceStable(ranked, func(i, j int) bool { return pool[ranked[i].Bot] > pool[ranked[j].Bot] })
	return ranked[:size]
}

// fillTable is the finals' table: the finalists, then Drunkards up to size seats.
func fillTable(finalists []Seat, size int) []Seat {
	final := slices.Clone(finalists)
	for len(final) < size {
		final = append(final, Seat{Class: DrunkardClass, Bot: -1})
	}
	return final
}

// stopReason applies §5.2 after a final game: the limit, then the lead; and the engine's
// rule that with fewer than two recorded bots the first game is all.
func stopReason(scored bool, finals, recorded int, finalists []Seat, score []int, o Options) string {
	if finals >= o.MaxFinals {
		return fmt.Sprintf("stopped after the limit of %d games", o.MaxFinals)
	}
	if !scored {
		return ""
	}
	if recorded < 2 {
		return "one game only: fewer than two bots compete"
	}
	first, second := -1, -1
	for _, f := range finalists {
		s := score[f.Bot]
		switch {
		case first < 0 || s > score[first]:
			first, second = f.Bot, first
		case second < 0 || s > score[second]:
			second = f.Bot
		}
	}
	if lead := score[first] - score[second]; lead >= o.Lead {
		return fmt.Sprintf("%s leads by %d", finalists[slices.IndexFunc(finalists, func(f Seat) bool { return f.Bot == first })].Class, lead)
	}
	return ""
}

// offsetExchanger numbers a batch's games after the games already played, so every game of
// a run has its own index in the bots' processes and in the fault records.
type offsetExchanger struct {
	ex   engine.Exchanger
	base int
}

func (o offsetExchanger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	shifted := make([]engine.Call, len(calls))
	for i, c := range calls {
		c.Game += o.base
		shifted[i] = c
	}
	return o.ex.Exchange(ctx, shifted)
}
