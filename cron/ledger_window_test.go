package cron

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The window behaves as the map of games it replaced: whatever the order games are counted
// in (out of order and below the window included), dropped and folded, each fold hands
// over exactly the pending games below its bound, in game order, and keeps the others.
func TestGameWindowActsAsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w gameWindow
	model := map[int]int{} // game → decisions counted
	folded := 0
	for step := range 20000 {
		switch op := rng.IntN(10); {
		case op < 7: // a decision, mostly near the newest games, now and then far behind
			game := folded + rng.IntN(300)
			if rng.IntN(50) == 0 {
				game = max(0, folded-rng.IntN(20)) // below the last fold: counted, folded next time
			}
			w.at(game).of(0).ok++
			model[game]++
		case op < 8:
			game := folded + rng.IntN(300)
			w.drop(game)
			delete(model, game)
		default:
			done := folded + rng.IntN(100)
			var got, want []int
			w.foldBelow(done, func(game int, g gameTally) {
				got = append(got, game, g.of(0).ok)
			})
			var games []int
			for game := range model {
				if game < done {
					games = append(games, game)
				}
			}
			slices.Sort(games)
			for _, game := range games {
				want = append(want, game, model[game])
				delete(model, game)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: fold below %d handed %v, want %v", step, done, got, want)
			}
			folded = done
		}
	}
	left := 0
	w.each(func(game int, g gameTally) {
		left++
		if n := model[game]; g.of(0).ok != n {
			t.Errorf("game %d: %d decisions pending, want %d", game, g.of(0).ok, n)
		}
	})
	if left != len(model) {
		t.Errorf("%d games pending, want %d", left, len(model))
	}
}
