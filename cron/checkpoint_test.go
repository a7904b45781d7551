package cron

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/store"
)

// faultyEx answers every call, with a crash for bot 1 in odd games.
type faultyEx struct{}

func (faultyEx) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		if c.Bot == 1 && c.Game%2 == 1 {
			out[i].Fault = &engine.Fault{Outcome: engine.Crash, Detail: "game " + string(rune('0'+c.Game))}
		}
	}
	return out
}

// The ledger's accounting at a checkpoint after k games counts exactly games 0..k-1,
// whatever else is in flight, and a ledger resumed from it ends with the straight one's.
func TestLedgerCountsGamesInOrder(t *testing.T) {
	ctx := context.Background()
	call := func(l *ledger, games ...int) {
		for _, g := range games {
			l.Exchange(ctx, []engine.Call{{Bot: 0, Game: g}, {Bot: 1, Game: g}})
		}
	}
	l := newLedger(faultyEx{}, 2, nil)
	call(l, 3, 0, 5, 1, 2, 4) // out of order, 4 and 5 beyond the checkpoint
	at4 := l.fold(4)
	if at4[0].Counts[engine.OK] != 4 || at4[1].Counts[engine.Crash] != 2 || at4[1].First == nil || at4[1].First.Detail != "game 1" {
		t.Fatalf("after 4 games: %+v", at4)
	}
	call(l, 6, 7)
	straight := l.final(&engine.Result{})

	saved, _ := json.Marshal(checkpointStats{Kothd: "v1", Bots: at4})
	if checkpointBuild(&store.Checkpoint{Stats: saved}) != "v1" || checkpointBuild(&store.Checkpoint{Stats: []byte("[]")}) != "" {
		t.Error("the build that wrote a checkpoint is misread")
	}
	st, err := savedStats(&store.Checkpoint{Stats: saved}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := newLedger(faultyEx{}, 2, st)
	call(r, 7, 4, 6, 5)
	resumed := r.final(&engine.Result{})
	for b := range straight {
		if s, g := straight[b].State(), resumed[b].State(); !equalJSON(s, g) {
			t.Errorf("bot %d: straight %+v, resumed %+v", b, s, g)
		}
	}
	if _, err := savedStats(&store.Checkpoint{Stats: saved}, 3); err == nil {
		t.Error("a checkpoint of 2 bots restored 3")
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Games the engine discarded (started, then not part of the result) are not charged to the
// bots: a crash in a final Ruins played ahead of its stopping rule would otherwise count or
// not depending on how many games were in flight.
func TestLedgerDropsDiscardedGames(t *testing.T) {
	ctx := context.Background()
	l := newLedger(faultyEx{}, 2, nil)
	for _, g := range []int{0, 1, 2, 3, 5} {
		l.Exchange(ctx, []engine.Call{{Bot: 0, Game: g}, {Bot: 1, Game: g}})
	}
	st := l.final(&engine.Result{Discarded: []int{3, 4, 5}})
	if ok, crash := st[0].State().Counts[engine.OK], st[1].State().Counts[engine.Crash]; ok != 3 || crash != 1 {
		t.Errorf("bot 0: %d OK, want 3 (games 0-2); bot 1: %d crashes, want 1 (game 1)", ok, crash)
	}
}

// Games pending between folds keep a first fault only while the run has none for the bot:
// a bot that faults on every call (out of its time budget) must not keep one per game (a
// million-game forty run peaked at 135 MB). The first fault in game order is unchanged.
func TestLedgerKeepsOneFirstFaultPerBot(t *testing.T) {
	ctx := context.Background()
	l := newLedger(faultyEx{}, 2, nil)
	for _, g := range []int{5, 3, 1} { // bot 1 crashes in odd games
		l.Exchange(ctx, []engine.Call{{Bot: 0, Game: g}, {Bot: 1, Game: g}})
	}
	if at2 := l.fold(2); at2[1].First == nil || at2[1].First.Detail != "game 1" {
		t.Fatalf("first fault after game 1 folded: %+v", at2[1].First)
	}
	for _, g := range []int{7, 9, 11} {
		l.Exchange(ctx, []engine.Call{{Bot: 1, Game: g}})
	}
	l.pending.each(func(g int, tallies gameTally) {
		if f := tallies.of(1).first; f != nil && g > 5 {
			t.Errorf("game %d keeps a first fault (%q) though game 1's is folded", g, f.Detail)
		}
	})
	st := l.final(&engine.Result{})
	if s := st[1].State(); s.Counts[engine.Crash] != 6 || s.First.Detail != "game 1" {
		t.Errorf("bot 1 at the end: %+v", s)
	}
}
