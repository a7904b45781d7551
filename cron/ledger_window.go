package cron

// gameWindow holds the tallies of the games not yet folded into a run's accounting,
// indexed by game number. Games are numbered in the order they start and folded in game
// order, so the pending ones span a window a little wider than the games in flight: a
// slice from the lowest pending number serves it, where a map cost a hashed lookup on
// cold memory for every decision (a tenth of kothd's CPU in a 16,384-game forty run). A
// tick's calls come in game order, so consecutive decisions touch consecutive entries.
type gameWindow struct {
	base  int         // the game number of games[0]
	games []gameTally // games base, base+1, …; nil: no decision counted yet
}

// at is game's tallies, the window widened to hold it.
func (w *gameWindow) at(game int) *gameTally {
	if len(w.games) == 0 {
		w.base, w.games = game, w.games[:0]
	}
	if game < w.base {
		// A game below the window (a decision counted out of order, as tests do): widen
		// it downwards, which costs a copy of the window.
		grown := make([]gameTally, w.base-game+len(w.games), w.base-game+cap(w.games))
		copy(grown[w.base-game:], w.games)
		w.base, w.games = game, grown
	}
	i := game - w.base
	for i >= len(w.games) {
		w.games = append(w.games, nil)
	}
	return &w.games[i]
}

// foldBelow hands f the tallies of every game below done that has any, in game order,
// and drops them from the window.
func (w *gameWindow) foldBelow(done int, f func(game int, g gameTally)) {
	n := min(max(done-w.base, 0), len(w.games))
	for i, g := range w.games[:n] {
		if g != nil {
			f(w.base+i, g)
		}
	}
	clear(w.games[:n]) // the backing array outlives the reslice: let the tallies go
	w.games = w.games[n:]
	w.base += n
}

// drop forgets game's tallies (a game the engine discarded).
func (w *gameWindow) drop(game int) {
	if i := game - w.base; i >= 0 && i < len(w.games) {
		w.games[i] = nil
	}
}

// each hands f every pending game's tallies, in game order.
func (w *gameWindow) each(f func(game int, g gameTally)) {
	for i, g := range w.games {
		if g != nil {
			f(w.base+i, g)
		}
	}
}
