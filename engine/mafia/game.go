package mafia

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/kothd/kothd/engine"
)

// game is the state of one game (spec §2.1). Players are indexed as in the lineup; the
// listed bots come first, the Randy fillers after them.
type game struct {
	ctx    context.Context
	bots   Bots
	opt    Options
	rng    *rand.Rand
	nBots  int
	names  []string
	sorted []string // the players file, byte order
	byName map[string]int

	role      []Role
	alive     []bool
	mafia     []int // the mafia list, in role-shuffle order
	cop       int   // -1 when there is none (never: n >= 6)
	doctor    int
	buf       []strings.Builder // queued messages (§1.3)
	inbox     []string          // a filler's from_server: fillers have no directory
	vote      []int             // noTarget or a player
	day       int
	victim    int // tonight's chosen victim, noTarget when none
	copTarget int
	turn      int // the bots' runs so far this game (engine.At.Turn)

	res *GameResult
}

// errVoid ends a game that met a host fault: it is voided, not scored.
type errVoid struct{ f *engine.Fault }

func (e errVoid) Error() string { return "host fault: " + e.f.Error() }

// Play plays one game with the lineup's players.
func (l Lineup) Play(ctx context.Context, bots Bots, seed uint64, opt Options) (GameResult, error) {
	g := newGame(ctx, l, bots, seed, opt)
	g.setup()
	err := g.play()
	copy(g.res.Roles, g.role)
	var void errVoid
	switch {
	case errors.As(err, &void):
		g.res.Outcome, g.res.Detail = Voided, void.f.Error()
		g.log("The game is voided (not the bots' fault): " + g.res.Detail)
	case err != nil:
		return GameResult{}, err
	case g.res.Outcome == MafiaVictory:
		g.log("MAFIA VICTORY")
	case g.res.Outcome == VillageVictory:
		g.log("VILLAGE VICTORY")
	case g.res.Outcome == Abandoned:
		g.log("The game is abandoned: nobody died in " + strconv.Itoa(StalemateDays) + " days and nights.")
	}
	return *g.res, nil
}

// log writes a line of the narrative log (spec §2.9), when one is kept.
func (g *game) log(line string) {
	if g.opt.Log != nil {
		g.opt.Log(line)
	}
}

// nameList joins the names of players.
func (g *game) nameList(ps []int) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = g.names[p]
	}
	return strings.Join(names, ", ")
}

func newGame(ctx context.Context, l Lineup, bots Bots, seed uint64, opt Options) *game {
	n := len(l.Names)
	g := &game{
		ctx: ctx, bots: bots, opt: opt, rng: engine.NewRand(seed), nBots: l.Bots,
		names: l.Names, sorted: sortedNames(l.Names), byName: make(map[string]int, n),
		role: make([]Role, n), alive: make([]bool, n), buf: make([]strings.Builder, n),
		inbox: make([]string, n), vote: make([]int, n), cop: noTarget, doctor: noTarget,
		victim: noTarget, copTarget: noTarget,
		res: &GameResult{Seed: seed, Roles: make([]Role, n), Faults: make([]int, n)},
	}
	for i, name := range l.Names {
		g.byName[name] = i
		g.alive[i] = true
		g.vote[i] = noTarget
	}
	return g
}

// play runs the game loop of spec §2.2 until a side wins or the game is abandoned.
func (g *game) play() error {
	var livingAt []int // living players after step 2 of each day
	for g.day = 0; ; g.day++ {
		g.res.Days = g.day + 1
		order := g.dayOrder()
		g.log("Day " + strconv.Itoa(g.day) + " begins.")
		if g.day == 0 {
			g.setupMessages()
		} else if g.dawn(&order) {
			return nil
		}
		livingAt = append(livingAt, len(order))
		if g.day >= StalemateDays && livingAt[g.day] == livingAt[g.day-StalemateDays] {
			g.res.Outcome = Abandoned
			return nil
		}
		g.writeAll(order)
		for range ActionRounds {
			outs, err := g.runAll(order, true)
			if err != nil {
				return err
			}
			for i, p := range order {
				g.apply(p, g.answer(p, outs[i]))
			}
			g.writeAll(order)
		}
		if err := g.lynch(&order); err != nil {
			return err
		}
		if g.over() {
			return nil
		}
		if err := g.night(); err != nil {
			return err
		}
	}
}

// setup shuffles the players (sorted by name) to deal the roles, and resets every bot's
// files for the new game.
func (g *game) setup() {
	players := make([]int, len(g.sorted))
	for i, name := range g.sorted {
		players[i] = g.byName[name]
	}
	g.rng.Shuffle(len(players), func(i, j int) { players[i], players[j] = players[j], players[i] })
	g.deal(players)
	g.log("Mafia: " + g.nameList(g.mafia))
	g.log("Cop: " + g.names[g.cop])
	g.log("Doctor: " + g.names[g.doctor])
	for p := 0; p < g.nBots; p++ {
		if err := g.bots.Setup(g.opt.Game, p, g.sorted); err != nil {
			g.res.Faults[p]++ // the bot broke its own directory; it plays on, deaf
		}
	}
}

// deal gives the roles by the shuffled player list (spec §2.1): the first third (rounded
// down) are the mafia list, then the cop, then the doctor.
func (g *game) deal(players []int) {
	nm := len(players) / 3
	g.mafia = append([]int(nil), players[:nm]...)
	for _, p := range g.mafia {
		g.role[p] = Mafioso
	}
	g.cop, g.doctor = players[nm], players[nm+1]
	g.role[g.cop], g.role[g.doctor] = Cop, Doctor
}

// dayOrder shuffles the living players (last night's victim still among them).
func (g *game) dayOrder() []int {
	var order []int
	for p := range g.names {
		if g.alive[p] {
			order = append(order, p)
		}
	}
	g.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

func (g *game) setupMessages() {
	for p := range g.names {
		g.buf[p].WriteString(setupText)
	}
	for _, m := range g.mafia {
		g.buf[m].WriteString(mafiaText)
		for _, ally := range g.mafia {
			if ally != m {
				g.buf[m].WriteString(g.names[ally] + "\n")
			}
		}
	}
	g.buf[g.cop].WriteString(copText)
	g.buf[g.doctor].WriteString(doctorText)
}

// dawn queues the dawn messages of day d ≥ 1 and kills last night's victim, removing it
// from the day order. It reports whether that death ended the game.
func (g *game) dawn(order *[]int) bool {
	g.broadcast("Dawn of day " + strconv.Itoa(g.day) + ".")
	if v := g.victim; v != noTarget {
		g.broadcast("Last night, " + g.names[v] + " was killed. They were " + g.role[v].Article() + ".")
		g.log(g.names[v] + ", " + g.role[v].Article() + ", was killed.")
		g.kill(v, order)
		g.victim = noTarget
		if g.over() {
			return true
		}
	}
	if g.opt.Log != nil {
		var living []int
		for p, a := range g.alive {
			if a {
				living = append(living, p)
			}
		}
		g.log("These players are still alive: " + g.nameList(living))
	}
	if g.cop != noTarget && g.alive[g.cop] && g.copTarget != noTarget {
		align := "village"
		if g.role[g.copTarget].Mafia() {
			align = "mafia"
		}
		g.queue(g.cop, "Investigations showed that "+g.names[g.copTarget]+" is "+align+"-aligned.")
	}
	return false
}

// apply carries out one day command of player p (spec §2.4).
func (g *game) apply(p int, out string) {
	c := g.parseDay(p, out)
	switch c.kind {
	case voteFor:
		g.vote[p] = c.target
		target := noOne
		if c.target != noTarget {
			target = g.names[c.target]
		}
		g.broadcast(g.names[p] + " has voted to lynch " + target + ".")
		g.log(g.names[p] + " has voted to lynch " + target + ".")
	case voteClear:
		g.vote[p] = noTarget
	case say:
		g.broadcast(c.text)
		g.log(c.text)
	}
}

// lynch counts the votes (spec §2.5), announces the result, runs the survivors once so they
// read it, and resets the votes.
func (g *game) lynch(order *[]int) error {
	votes := make([]int, len(*order))
	for i, p := range *order {
		votes[i] = g.vote[p]
	}
	g.rng.Shuffle(len(votes), func(i, j int) { votes[i], votes[j] = votes[j], votes[i] })
	if x := plurality(votes, len(g.names)); x != noTarget {
		g.broadcast("The town has killed " + g.names[x] + "!")
		g.broadcast("They were " + g.role[x].Article() + ".")
		g.log("The town has killed " + g.names[x] + "!")
		g.log("They were " + g.role[x].Article() + ".")
		g.kill(x, order)
	} else {
		g.broadcast(noLynchText)
		g.log(noLynchText)
	}
	g.writeAll(*order)
	outs, err := g.runAll(*order, false)
	if err != nil {
		return err
	}
	for i, p := range *order {
		g.answer(p, outs[i]) // read by no one, but a filler draws as it answers
		g.vote[p] = noTarget
	}
	return nil
}

// night runs the mafia, the cop and the doctor (spec §2.6). Each sees only its prompt, so
// all of them run at once; their answers are applied in the rules' order.
func (g *game) night() error {
	var ps []int
	for _, m := range g.mafia {
		if g.alive[m] {
			g.queue(m, mafiaPrompt)
			ps = append(ps, m)
		}
	}
	nm := len(ps)
	for _, pr := range []struct {
		p    int
		text string
	}{{g.cop, copPrompt}, {g.doctor, doctorPrompt}} {
		if pr.p != noTarget && g.alive[pr.p] {
			g.queue(pr.p, pr.text)
			ps = append(ps, pr.p)
		}
	}
	g.writeAll(ps)
	outs, err := g.runAll(ps, true)
	if err != nil {
		return err
	}
	votes := make([]int, nm)
	for i, m := range ps[:nm] {
		votes[i] = noTarget
		if t, ok := g.parseNight(g.answer(m, outs[i])); ok && g.alive[t] {
			votes[i] = t
		}
		g.log(g.names[m] + " votes to kill " + g.target(votes[i]) + ".")
	}
	g.rng.Shuffle(len(votes), func(i, j int) { votes[i], votes[j] = votes[j], votes[i] })
	g.victim = plurality(votes, len(g.names))
	if nm > 0 {
		g.log("The mafia collectively decides to kill " + g.target(g.victim) + ".")
	}
	g.copTarget = noTarget
	for i, p := range ps[nm:] {
		t, ok := g.parseNight(g.answer(p, outs[nm+i]))
		switch {
		case p == g.cop && !ok:
			g.log(g.names[p] + " chooses not to investigate anyone.")
		case p == g.cop:
			g.copTarget = t
			g.log(g.names[p] + " spends the night investigating " + g.names[t] + ".")
		case !ok:
			g.log(g.names[p] + " took tonight off.")
		case t == g.victim:
			g.victim = noTarget
			g.log(g.names[p] + " was able to save " + g.names[t] + " from near-certain death.")
		default:
			g.log(g.names[p] + " tried to save " + g.names[t] + ", but they were not the target.")
		}
	}
	return nil
}

// target names a vote's target for the log: a player, or no one.
func (g *game) target(p int) string {
	if p == noTarget {
		return noOne
	}
	return g.names[p]
}

// plurality returns the value with the highest count; among tied values the first in the
// (already shuffled) list. noTarget competes like a player.
func plurality(votes []int, players int) int {
	count := make([]int, players+1)
	best, bestN := noTarget, 0
	for _, v := range votes {
		count[v+1]++
	}
	for _, v := range votes {
		if count[v+1] > bestN {
			best, bestN = v, count[v+1]
		}
	}
	return best
}

// over reports whether a side has won (spec §2.2) and records the outcome.
func (g *game) over() bool {
	mafia, village := 0, 0
	for p, a := range g.alive {
		switch {
		case !a:
		case g.role[p].Mafia():
			mafia++
		default:
			village++
		}
	}
	switch {
	case mafia == 0:
		g.res.Outcome = VillageVictory
	case mafia >= village:
		g.res.Outcome = MafiaVictory
	default:
		return false
	}
	return true
}

func (g *game) kill(p int, order *[]int) {
	g.alive[p] = false
	for i, q := range *order {
		if q == p {
			*order = append((*order)[:i:i], (*order)[i+1:]...)
			break
		}
	}
}
