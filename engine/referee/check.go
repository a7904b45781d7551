package referee

import (
	"context"
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine"
)

// Dummies are the built-in bots `kothd referee` plays a host's referee against: one that
// answers every line with the line itself, and one of each fault a real bot gives, so the
// host sees that the referee reads every kind of answer before a participant's bot finds
// the case it does not.
var Dummies = []string{"Echo", "Silent", "Crasher", "Garbage"}

// dummies answers as the Dummies do, without processes.
type dummies struct{}

func (dummies) Ask(_ context.Context, _ int, _ engine.At, bot int, line string, _ any, check func(string) *engine.Fault) (string, *engine.Fault) {
	var reply string
	switch Dummies[bot] {
	case "Silent":
		return "", &engine.Fault{Outcome: engine.Timeout, Detail: "no reply"}
	case "Crasher":
		return "", &engine.Fault{Outcome: engine.Crash, Detail: "exited", ProcessDied: true}
	case "Garbage":
		reply = "\x7f}{ not what you asked"
	default:
		reply = line
	}
	if check != nil {
		if f := check(reply); f != nil {
			return "", f
		}
	}
	return reply, nil
}

func (dummies) EndUnit(int) {}

// Check plays games games of the host's referee (r.Referee, r.Options) against the
// Dummies, seated as the challenge's shape seats them, one at a time, and reports each
// game: its result, or the protocol mistake that voided it with the offending line.
// trace, when set, gets every line of the first game. The error says how many games the
// referee broke.
func Check(ctx context.Context, r engine.Run, games int, report func(string), trace func(string)) error {
	r.Bots = make([]engine.Entrant, len(Dummies))
	for i, n := range Dummies {
		r.Bots[i] = engine.Entrant{Name: n, Baseline: true}
	}
	r.Lines, r.Launch = dummies{}, nil
	o, err := optionsOf(r)
	if err != nil {
		return err
	}
	broken := 0
	for g := range games {
		seats := o.seating(len(r.Bots), r.Seed, g)
		p := &player{r: r, o: o, strict: true}
		if g == 0 {
			p.trace = trace
		}
		v := p.game(ctx, g, seats)
		names := make([]string, len(seats))
		for i, b := range seats {
			names[i] = Dummies[b]
		}
		if v.Void != "" {
			broken++
			report(fmt.Sprintf("game %d (%s): VOIDED: %s", g, strings.Join(names, ", "), v.Void))
			continue
		}
		report(fmt.Sprintf("game %d (%s): scores %v", g, strings.Join(names, ", "), v.Scores))
	}
	if broken > 0 {
		return fmt.Errorf("the referee broke %d of %d games (above: each game's offending line)", broken, games)
	}
	return nil
}
