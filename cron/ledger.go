package cron

import (
	"context"
	"slices"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/protocol"
)

// ledger is the fault accounting of a pyclass run in game order. Games finish out of order
// and many are in flight at once, so each game's decisions are counted apart until the
// engine has folded every game before it; then they join the run's accounting. So the
// accounting at a checkpoint after k games is that of games 0..k-1; at the end it is that
// of every game the result holds, without the games the engine discarded (engine.Result.
// Discarded); and its first fault is the first in game order. All of it is the same
// whatever the concurrency or where the run was resumed. Only the pyclass protocol's calls
// say which game they belong to, so only its runs have a ledger.
type ledger struct {
	engine.Exchanger
	mu      sync.Mutex
	base    []*protocol.Stats // games folded
	pending map[int][]tally   // per game not yet folded: per bot
	stopAt  int               // the game the run stopped before; -1: it did not stop
}

// tally is one bot's decisions in one game not yet folded. Thousands of games are pending
// between two folds (the games in flight and a checkpoint's worth), so it is kept small:
// no lock, no map, and the first fault only while the run has none for the bot yet (a
// later game's cannot be the first in game order once an earlier one is folded). A bot out
// of its time budget faults on every call: keeping each game's fault in full made a
// million-game forty run peak at 135 MB.
type tally struct {
	ok, host int
	faults   []outcomeCount // outcomes other than OK, in the order met
	first    *protocol.FirstFault
}

type outcomeCount struct {
	outcome engine.Outcome
	n       int
}

func (t *tally) record(f *engine.Fault, c engine.Call, firstWanted bool) {
	switch {
	case f == nil:
		t.ok++
	case f.Outcome == engine.HostFault:
		t.host++
	default:
		t.addFault(f.Outcome)
		if t.first == nil && firstWanted {
			t.first = protocol.NewFirstFault(f, c)
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
	l := &ledger{Exchanger: ex, pending: map[int][]tally{}, stopAt: -1, base: make([]*protocol.Stats, bots)}
	for i := range l.base {
		if saved != nil {
			l.base[i] = protocol.StatsFrom(saved[i])
		} else {
			l.base[i] = protocol.NewStats()
		}
	}
	return l
}

// connectLedger puts a ledger between r and its protocol: r's calls and the decisions its
// engine settles itself are counted by the ledger from then on.
func connectLedger(r *engine.Run, saved []protocol.StatsState) *ledger {
	l := newLedger(r.Calls, len(r.Bots), saved)
	r.Calls = l
	r.Fault = l.engineFault
	return l
}

// Exchange passes the batch on and counts its replies.
func (l *ledger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	return l.Send(ctx, calls)()
}

// Send passes the batch on, pipelined if the runner is (engine.Pipeliner), and counts its
// replies when they are received.
func (l *ledger) Send(ctx context.Context, calls []engine.Call) func() []engine.Reply {
	receive := engine.Send(ctx, l.Exchanger, calls)
	return func() []engine.Reply {
		replies := receive()
		l.count(calls, replies)
		return replies
	}
}

// count counts each reply under its game and bot, as the runner counts it.
func (l *ledger) count(calls []engine.Call, replies []engine.Reply) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range calls {
		if i >= len(replies) || c.Bot < 0 || c.Bot >= len(l.base) {
			continue
		}
		g := l.pending[c.Game]
		if g == nil {
			g = make([]tally, len(l.base))
			l.pending[c.Game] = g
		}
		f := replies[i].Fault
		g[c.Bot].record(f, c, f != nil && !l.base[c.Bot].HasFirst())
	}
}

// engineFault records a decision the engine settled itself. It names no game, so it is
// counted at once: a Batched engine that settles decisions itself has them counted in
// the order they happen (none does today).
func (l *ledger) engineFault(bot int, f *engine.Fault, input any) {
	if bot >= 0 && bot < len(l.base) {
		l.base[bot].Record(f, input)
	}
}

// fold adds the games below done to the run's accounting, in game order, and returns it
// as data.
func (l *ledger) fold(done int) []protocol.StatsState {
	l.mu.Lock()
	defer l.mu.Unlock()
	var games []int
	for g := range l.pending {
		if g < done {
			games = append(games, g)
		}
	}
	slices.Sort(games)
	for _, g := range games {
		for b := range l.pending[g] {
			if t := &l.pending[g][b]; !t.empty() {
				l.base[b].Add(t.state())
			}
		}
		delete(l.pending, g)
	}
	out := make([]protocol.StatsState, len(l.base))
	for i, s := range l.base {
		out[i] = s.State()
	}
	return out
}

// final is the accounting of the whole run: every game, or those before the stop, without
// the games res discarded.
func (l *ledger) final(res *engine.Result) []*protocol.Stats {
	l.mu.Lock()
	for _, g := range res.Discarded {
		delete(l.pending, g)
	}
	l.mu.Unlock()
	end := l.stopAt
	if end < 0 {
		end = int(^uint(0) >> 1)
	}
	l.fold(end)
	return l.base
}
