package mafia

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kothd/kothd/engine"
)

// How a game reaches its players: message buffers written to from_server, runs of the
// listed bots (concurrent within a round), and the Randy fillers, which live in the engine.

// queue appends a message line to one player's buffer.
func (g *game) queue(p int, line string) {
	g.buf[p].WriteString(line)
	g.buf[p].WriteByte('\n')
}

// broadcast queues a line for every living player.
func (g *game) broadcast(line string) {
	for p, a := range g.alive {
		if a {
			g.queue(p, line)
		}
	}
}

// writeAll writes the buffers of the given players to their from_server and clears them.
func (g *game) writeAll(ps []int) {
	for _, p := range ps {
		text := g.buf[p].String()
		g.buf[p].Reset()
		if p >= g.nBots {
			g.inbox[p] = text
			continue
		}
		if err := g.bots.Deliver(p, text); err != nil {
			g.res.Faults[p]++ // the bot broke its own from_server; it plays on, deaf
		}
	}
}

// runAll runs the listed bots among ps once each, at most opt.Parallel at a time, and
// returns their outputs in ps order (fillers' slots stay empty: see answer). A host fault
// voids the game; any other fault has already been turned into an empty or partial answer
// by Bots.Run and is only counted.
func (g *game) runAll(ps []int, collect bool) ([]string, error) {
	outs := make([]string, len(ps))
	faults := make([]*engine.Fault, len(ps))
	par := max(g.opt.Parallel, 1)
	at := engine.At{Game: g.opt.Game, Turn: g.turn}
	g.turn++
	if par == 1 {
		for i, p := range ps {
			if p < g.nBots {
				outs[i], faults[i] = g.bots.Run(g.ctx, at, p, collect)
			}
		}
	} else {
		sem := make(chan struct{}, par)
		var wg sync.WaitGroup
		for i, p := range ps {
			if p >= g.nBots {
				continue
			}
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				outs[i], faults[i] = g.bots.Run(g.ctx, at, p, collect)
			}()
		}
		wg.Wait()
	}
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	for i, f := range faults {
		switch {
		case f == nil:
		case f.Outcome == engine.HostFault:
			return nil, errVoid{f}
		default:
			g.res.Faults[ps[i]]++
		}
	}
	return outs, nil
}

// answer is player p's answer for this run: a listed bot's output, or the filler Randy's,
// computed now so that its draws come in the order the sequential original made them.
func (g *game) answer(p int, out string) string {
	if p < g.nBots {
		return out
	}
	return g.randy(g.inbox[p])
}

// randy is the question's sample bot (spec §1.5), drawing from the engine's generator.
func (g *game) randy(from string) string {
	if from == "" {
		return "" // raw_input() meets end of file; the bot prints nothing
	}
	line, _, _ := strings.Cut(from, "\n")
	choice := func() string {
		if i := g.rng.IntN(len(g.sorted) + 1); i < len(g.sorted) {
			return g.sorted[i]
		}
		return noOne
	}
	if strings.HasSuffix(line, "?") || strings.HasSuffix(line, randyNightEnd) {
		return choice() + "\n"
	}
	if g.rng.Float64() <= 0.5 {
		return ""
	}
	if g.rng.Float64() > 0.5 {
		return "vote " + choice() + "\n"
	}
	id := g.rng.IntN(18) // 17 is not a valid id: Randy's own bug, kept
	if id > 4 {
		return fmt.Sprintf("say %d %s\n", id, choice())
	}
	return fmt.Sprintf("say %d\n", id)
}
