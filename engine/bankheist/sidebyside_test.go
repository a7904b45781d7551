package bankheist

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// scripted is an engine.Launcher whose bots answer from their arguments alone (as a bot
// that keeps nothing between calls must): a tenth of their credits, then a decision that
// depends on the game number. When gate is set, the first call of each tournament waits
// until gate tournaments have made theirs: it proves they are in flight together.
type scripted struct {
	gate    int
	mu      sync.Mutex
	arrived map[int]bool
	all     chan struct{}
	late    bool // the gate timed out
}

func (s *scripted) Launch(ctx context.Context, unit, bot int, args []string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	in := input.(decisionInput)
	if s.gate > 0 && in.Game == 0 && in.Round == 1 {
		s.mu.Lock()
		if !s.arrived[in.Tournament] {
			s.arrived[in.Tournament] = true
			if len(s.arrived) == s.gate {
				close(s.all)
			}
		}
		s.mu.Unlock()
		select {
		case <-s.all:
		case <-time.After(20 * time.Second):
			s.mu.Lock()
			s.late = true
			s.mu.Unlock()
		}
	}
	var ans string
	if args[1] == "1" {
		credits, _ := strconv.Atoi(args[8])
		ans = strconv.Itoa(credits / (7 + bot))
	} else {
		g, _ := strconv.Atoi(args[0])
		ans = []string{"!guncheck", "double cross", "finger", "deposit", "withdraw", "back out"}[(g+bot)%6]
	}
	if check != nil {
		if f := check(ans); f != nil {
			return "", f
		}
	}
	return ans, nil
}

func (s *scripted) Command(bot int) string { return "scripted " + strconv.Itoa(bot) }
func (s *scripted) EndUnit(int)            {}

// Tournaments run side by side (four at once here) and the table is the one of a run that
// plays them one at a time: same seed, same bots, same table.
func TestTournamentsSideBySide(t *testing.T) {
	bots := []engine.Entrant{{Name: "A", Seed: 1}, {Name: "B", Seed: 2}, {Name: "RaysFive01K", Baseline: true, Seed: 3}, {Name: "C", Seed: 4}}
	run := func(concurrency int, l *scripted) *engine.Result {
		r := engine.Run{Bots: bots, Seed: 7, Games: 4 * 25, Concurrency: concurrency,
			Options: &Config{GamesPerTournament: 25}, Launch: l}
		res, err := Descriptor.Play(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one := run(1, &scripted{})
	side := &scripted{gate: 4, arrived: map[int]bool{}, all: make(chan struct{})}
	four := run(4, side)
	if side.late {
		t.Error("the four tournaments never had their first calls in flight together")
	}
	if !reflect.DeepEqual(one, four) {
		t.Fatalf("one at a time and four side by side differ:\n%+v\n%+v", one.Rows, four.Rows)
	}
	if one.Games < 100 || !strings.Contains(one.Appendix, "4") {
		t.Errorf("%d games; appendix %q", one.Games, one.Appendix)
	}
}
