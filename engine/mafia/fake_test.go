package mafia

import (
	"context"

	"github.com/kothd/kothd/engine"
)

// fakeBots plays listed bots written as Go functions. act receives the bot's from_server
// and returns what the bot writes to to_server; like a `> to_server` redirection it always
// overwrites the file. Each slice element belongs to one bot, so runs of different bots may
// be concurrent.
type fakeBots struct {
	act     func(bot int, from string) string
	fault   func(bot int, run int) *engine.Fault // optional: a fault for the bot's run-th run
	from    []string
	to      []string
	got     [][]string // every from_server delivered, per bot
	players [][]string
	runs    []int
}

func newFake(n int, act func(bot int, from string) string) *fakeBots {
	return &fakeBots{act: act, from: make([]string, n), to: make([]string, n), got: make([][]string, n), players: make([][]string, n), runs: make([]int, n)}
}

func (f *fakeBots) Setup(game, bot int, players []string) error {
	f.players[bot] = players
	f.from[bot], f.to[bot] = "", ""
	return nil
}

func (f *fakeBots) Deliver(bot int, text string) error {
	f.from[bot] = text
	f.got[bot] = append(f.got[bot], text)
	return nil
}

func (f *fakeBots) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	f.runs[bot]++
	if f.fault != nil {
		if ft := f.fault(bot, f.runs[bot]); ft != nil {
			return "", ft
		}
	}
	if f.act != nil {
		f.to[bot] = f.act(bot, f.from[bot])
	}
	if !collect {
		return "", nil
	}
	out := f.to[bot]
	f.to[bot] = ""
	return out, nil
}

func (f *fakeBots) LastExit(bot int) int { return 0 }

// silent is a bot that never writes anything.
func silent(int, string) string { return "" }

var phonetic = []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"}

// testGame builds a game of listed bots named names (no fillers unless fewer than six).
func testGame(names []string, bots Bots, seed uint64) *game {
	return newGame(context.Background(), NewLineup(names), bots, seed, Options{})
}

// ids maps names to player indices.
func (g *game) ids(names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = g.byName[n]
	}
	return out
}
