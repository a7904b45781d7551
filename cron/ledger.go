package cron

import (
	"context"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
)

// ledger is the fault accounting of a run in game order, for every protocol: each decision
// names its game (engine.Call.Game, engine.At). Games finish out of order and many are in
// flight at once, so each game's decisions are counted apart until the engine has folded
// every game before it; then they join the run's accounting. So the accounting at a
// checkpoint after k games is that of games 0..k-1; at the end it is that of every game
// the result holds, without the games the engine discarded (engine.Result.Discarded); and
// its first fault is the first in game order. All of it is the same whatever the
// concurrency or where the run was resumed. A decision of no game (engine.NoGame) is
// counted at once.
type ledger struct {
	engine.Exchanger          // pyclass: the protocol's, nil for the others
	names            []string // the bots' names, for a dirfiles fault's input
	mu               sync.Mutex
	base             []*protocol.Stats // games folded
	pending          gameWindow        // per game not yet folded: its bots'
	stopAt           int               // the game the run stopped before; -1: it did not stop
}

// tally is one bot's decisions in one game not yet folded. Thousands of games are pending
// between two folds (the games in flight and a checkpoint's worth), so it is kept small:
// no lock, no map, and the first fault only while the run has none for the bot yet (a
// later game's cannot be the first in game order once an earlier one is folded). A bot out
// of its time budget faults on every call: keeping each game's fault in full made a
// million-game forty run peak at 135 MB.
type tally struct {
	bot      int
	ok, host int
	faults   []outcomeCount // outcomes other than OK, in the order met
	first    *protocol.FirstFault
}

// gameTally is the tallies of one game not yet folded, one per bot that decided in it, in
// the order met. A game seats few of the run's bots (forty: 8 of 49), and thousands are in
// flight: one tally per bot of the run for each game made a forty run at 8192 games in
// flight hold 20 MB of tallies, mostly empty. A game rarely seats more than a dozen bots,
// so a scan finds a bot's tally as fast as an index would.
type gameTally []tally

// of is bot's tally in the game, added when the bot has none yet.
func (g *gameTally) of(bot int) *tally {
	for i := range *g {
		if (*g)[i].bot == bot {
			return &(*g)[i]
		}
	}
	*g = append(*g, tally{bot: bot})
	return &(*g)[len(*g)-1]
}

type outcomeCount struct {
	outcome engine.Outcome
	n       int
}

func (t *tally) record(f *engine.Fault, input any, firstWanted bool) {
	switch {
	case f == nil:
		t.ok++
	case f.Outcome == engine.HostFault:
		t.host++
	default:
		t.addFault(f.Outcome)
		if t.first == nil && firstWanted {
			t.first = protocol.NewFirstFault(f, input)
		}
	}
}

func (t *tally) addFault(o engine.Outcome) {
	for i := range t.faults {
		if t.faults[i].outcome == o {
			t.faults[i].n++
			return
		}
	}
	t.faults = append(t.faults, outcomeCount{o, 1})
}

// state is the tally as accounting data.
func (t *tally) state() protocol.StatsState {
	st := protocol.StatsState{Host: t.host, First: t.first, Counts: make(map[engine.Outcome]int, len(t.faults)+1)}
	if t.ok > 0 {
		st.Counts[engine.OK] = t.ok
	}
	for _, oc := range t.faults {
		st.Counts[oc.outcome] += oc.n
	}
	return st
}

func (t *tally) empty() bool { return t.ok == 0 && t.host == 0 && len(t.faults) == 0 }

func newLedger(ex engine.Exchanger, bots int, saved []protocol.StatsState) *ledger {
	l := &ledger{Exchanger: ex, stopAt: -1, base: make([]*protocol.Stats, bots)}
	for i := range l.base {
		if saved != nil {
			l.base[i] = protocol.StatsFrom(saved[i])
		} else {
			l.base[i] = protocol.NewStats()
		}
	}
	return l
}

// connectLedger puts a ledger between r and its protocol (whichever of Calls, Launch and
// Files is connected): r's decisions and those its engine settles itself are counted by
// the ledger from then on.
func connectLedger(r *engine.Run, saved []protocol.StatsState) *ledger {
	l := newLedger(r.Calls, len(r.Bots), saved)
	for _, b := range r.Bots {
		l.names = append(l.names, b.Name)
	}
	if r.Calls != nil {
		r.Calls = l
	}
	if r.Launch != nil {
		r.Launch = &ledgerLaunch{Launcher: r.Launch, l: l}
	}
	if r.Files != nil {
		r.Files = &ledgerFiles{DirBots: r.Files, l: l, last: make([]string, len(r.Bots))}
	}
	r.Fault = l.engineFault
	return l
}

// Exchange passes the batch on and counts its replies.
func (l *ledger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	replies := l.Exchanger.Exchange(ctx, calls)
	l.count(calls, replies)
	return replies
}

// count counts each reply under its game and bot, as the runner counts it.
func (l *ledger) count(calls []engine.Call, replies []engine.Reply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range calls {
		if i < len(replies) {
			// The call describes a fault only: boxed for every decision, it cost an
			// allocation each.
			var input any
			if f := replies[i].Fault; f != nil {
				input = c
			}
			l.countOne(c.Game, c.Bot, replies[i].Fault, input)
		}
	}
}

// countOne counts one decision of bot in game (l.mu held); input describes it for a
// first fault.
func (l *ledger) countOne(game, bot int, f *engine.Fault, input any) {
	if bot < 0 || bot >= len(l.base) {
		return
	}
	if game < 0 {
		l.base[bot].Record(f, input)
		return
	}
	l.pending.at(game).of(bot).record(f, input, f != nil && l.base[bot].WantsFirst(f))
}

// decided counts one decision of bot at at.
func (l *ledger) decided(at engine.At, bot int, f *engine.Fault, input any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.countOne(at.Game, bot, f, input)
}

// engineFault records a decision the engine settled itself (a built-in bot's), under its
// game like the protocol's.
func (l *ledger) engineFault(at engine.At, bot int, f *engine.Fault, input any) {
	l.decided(at, bot, f, input)
}

// fold adds the games below done to the run's accounting, in game order, and returns it
// as data.
func (l *ledger) fold(done int) []protocol.StatsState {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.advance(done)
	out := make([]protocol.StatsState, len(l.base))
	for i, s := range l.base {
		out[i] = s.State()
	}
	return out
}

// advance adds the games below done to the run's accounting, in game order (l.mu held).
// Called at every batch boundary, it keeps pending only the games in flight: a Bank Heist
// run reports a boundary at every tournament's end.
func (l *ledger) advance(done int) {
	l.pending.foldBelow(done, func(_ int, g gameTally) {
		for _, t := range g {
			if !t.empty() {
				l.base[t.bot].Add(t.state())
			}
		}
	})
}

// final is the accounting of the whole run: every game, or those before the stop, without
// the games res discarded.
func (l *ledger) final(res *engine.Result) []*protocol.Stats {
	l.mu.Lock()
	for _, g := range res.Discarded {
		l.pending.drop(g)
	}
	l.mu.Unlock()
	end := l.stopAt
	if end < 0 {
		end = int(^uint(0) >> 1)
	}
	l.fold(end)
	return l.base
}
