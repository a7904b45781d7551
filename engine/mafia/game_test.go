package mafia

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// omniscient builds a six-player game whose fakes act on the dealt roles: script gets the
// game, the acting player and its from_server.
func omniscient(t *testing.T, seed uint64, script func(g *game, p int, from string) string) (*game, *fakeBots) {
	t.Helper()
	var g *game
	fake := newFake(6, func(b int, from string) string { return script(g, b, from) })
	g = testGame(phonetic[:6], fake, seed)
	g.setup()
	return g, fake
}

// withRole lists the players of a role in index order.
func (g *game) withRole(r Role) []int {
	var out []int
	for p, pr := range g.role {
		if pr == r {
			out = append(out, p)
		}
	}
	return out
}

func delivered(f *fakeBots, text string) bool {
	for _, got := range f.got {
		for _, d := range got {
			if strings.Contains(d, text) {
				return true
			}
		}
	}
	return false
}

func TestMafiaWinsAtDawn(t *testing.T) { // §7.5
	g, fake := omniscient(t, 11, func(g *game, p int, from string) string {
		villagers := g.withRole(Villager)
		switch {
		case g.day == 1 && !strings.HasPrefix(from, "It is night"):
			return "vote " + g.names[villagers[0]]
		case g.day == 1 && from == mafiaPrompt+"\n":
			return g.names[villagers[1]]
		}
		return ""
	})
	if err := g.play(); err != nil {
		t.Fatal(err)
	}
	if g.res.Outcome != MafiaVictory || g.res.Days != 3 {
		t.Fatalf("outcome %v after %d days, want mafia victory at the dawn of day 2", g.res.Outcome, g.res.Days)
	}
	if !delivered(fake, "The town has killed "+g.names[g.withRole(Villager)[0]]+"!") {
		t.Error("the day-1 lynch was not announced")
	}
	if delivered(fake, "Dawn of day 2.") {
		t.Error("the dawn that ended the game was delivered")
	}
}

func TestVillageWinsBeforeNight(t *testing.T) { // §7.5
	g, fake := omniscient(t, 12, func(g *game, p int, from string) string {
		if g.day >= 1 && g.day <= 2 && !strings.HasPrefix(from, "It is night") {
			return "vote " + g.names[g.mafia[g.day-1]]
		}
		return ""
	})
	if err := g.play(); err != nil {
		t.Fatal(err)
	}
	if g.res.Outcome != VillageVictory || g.res.Days != 3 {
		t.Fatalf("outcome %v after %d days, want village victory on day 2", g.res.Outcome, g.res.Days)
	}
	last := g.mafia[1]
	prompts := 0
	for _, d := range fake.got[last] {
		if d == mafiaPrompt+"\n" {
			prompts++
		}
	}
	if prompts != 2 {
		t.Errorf("the last mafioso was prompted %d times, want 2 (nights 0 and 1, none after the win)", prompts)
	}
}

func TestStalemateAbandoned(t *testing.T) {
	fake := newFake(6, silent)
	l := NewLineup(phonetic[:6])
	r, err := l.Play(context.Background(), fake, 5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Abandoned || r.Days != StalemateDays+1 {
		t.Fatalf("outcome %v after %d days, want abandoned at day %d", r.Outcome, r.Days, StalemateDays)
	}
	for b := range 6 {
		// Per day: the dawn write, 50 round writes and the lynch write, 50 runs and a
		// result run; power roles add a prompt and a run per night.
		runs, writes := 10*(ActionRounds+1), 10*(ActionRounds+2)
		if r.Roles[b] != Villager {
			runs, writes = runs+10, writes+10
		}
		if fake.runs[b] != runs || len(fake.got[b]) != writes {
			t.Errorf("%s (%v): %d runs, %d writes; want %d, %d", l.Names[b], r.Roles[b], fake.runs[b], len(fake.got[b]), runs, writes)
		}
	}
	// One death resets the count: a lynch on day 3 (after its step 2) makes day 4 the
	// first day with five living players, so the game is abandoned at day 14.
	var g *game
	fake = newFake(6, func(b int, from string) string {
		if g.day == 3 && !strings.HasPrefix(from, "It is night") {
			return "vote " + g.names[g.withRole(Villager)[0]]
		}
		return ""
	})
	g = testGame(phonetic[:6], fake, 5)
	g.setup()
	if err := g.play(); err != nil {
		t.Fatal(err)
	}
	if g.res.Outcome != Abandoned || g.res.Days != 15 {
		t.Errorf("outcome %v after %d days, want abandoned at day 14", g.res.Outcome, g.res.Days)
	}
}

func TestRoundsSeePreviousRound(t *testing.T) {
	fake := newFake(6, func(int, string) string { return "say 1" })
	g := testGame(phonetic[:6], fake, 9)
	g.setup()
	if err := g.play(); err != nil {
		t.Fatal(err)
	}
	got := fake.got[0]
	if !strings.HasPrefix(got[0], "Rise and shine!") {
		t.Fatalf("first write = %q", got[0])
	}
	// The write after round 1 holds everyone's speech of round 1, one line each.
	lines := strings.Split(strings.TrimSuffix(got[1], "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("after round 1: %q", got[1])
	}
	seen := map[string]bool{}
	for _, l := range lines {
		name, rest, _ := strings.Cut(l, " ")
		if rest != `says "Yes"` {
			t.Errorf("line %q", l)
		}
		seen[name] = true
	}
	if len(seen) != 6 {
		t.Errorf("speakers %v", seen)
	}
	if got[ActionRounds+1] != "The town opted to lynch no one today.\n" {
		t.Errorf("day 0 ends with %q", got[ActionRounds+1])
	}
}

func TestRandyFillers(t *testing.T) {
	l := NewLineup([]string{"Quiet", "Loud"})
	if len(l.Names) != 6 || l.Names[2] != "Randy1" {
		t.Fatalf("lineup %v", l.Names)
	}
	outcomes := map[Outcome]int{}
	for seed := range uint64(20) {
		fake := newFake(2, silent)
		r, err := l.Play(context.Background(), fake, seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		again, _ := l.Play(context.Background(), newFake(2, silent), seed, Options{})
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("seed %d: %+v then %+v", seed, r, again)
		}
		outcomes[r.Outcome]++
		if seed == 0 && !delivered(fake, "Randy") {
			t.Error("the fillers never said or voted anything")
		}
	}
	if outcomes[VillageVictory] == 0 || outcomes[MafiaVictory] == 0 {
		t.Errorf("outcomes over 20 games of Randys: %v", outcomes)
	}
}

func TestRandy(t *testing.T) {
	g := testGame([]string{"A", "B"}, newFake(2, silent), 3)
	if got := g.randy(""); got != "" {
		t.Errorf("Randy with an empty from_server said %q", got)
	}
	options := map[string]bool{"no one": true}
	for _, n := range g.sorted {
		options[n] = true
	}
	kinds := map[string]int{}
	for range 2000 {
		for _, prompt := range []string{mafiaPrompt, copPrompt, doctorPrompt} {
			if out := g.randy(prompt + "\n"); !options[strings.TrimSuffix(out, "\n")] {
				t.Fatalf("night answer %q", out)
			}
		}
		out := g.randy("Dawn of day 1.\nLast night, A was killed. They were a villager.\n")
		w := strings.Fields(out)
		switch {
		case out == "":
			kinds["nothing"]++
		case w[0] == "vote" && options[strings.TrimPrefix(strings.TrimSuffix(out, "\n"), "vote ")]:
			kinds["vote"]++
		case w[0] == "say":
			var id int
			fmt.Sscan(w[1], &id)
			if id < 0 || id > 17 || (id > 4) != (len(w) > 2) {
				t.Fatalf("speech %q", out)
			}
			kinds[fmt.Sprintf("say %v", id > 4)]++
			if id == 17 {
				kinds["17"]++
			}
		default:
			t.Fatalf("day answer %q", out)
		}
	}
	// Half says nothing, a quarter votes, a quarter speaks (17 of 18 ids with a subject).
	if kinds["nothing"] < 850 || kinds["vote"] < 400 || kinds["say true"] < 300 || kinds["say false"] < 80 || kinds["17"] == 0 {
		t.Errorf("Randy's answers: %v", kinds)
	}
}

func TestFaultsAreCountedAndHostFaultsVoid(t *testing.T) {
	l := NewLineup(phonetic[:6])
	fake := newFake(6, silent)
	fake.fault = func(bot, run int) *engine.Fault {
		if bot == 2 && run%100 == 3 {
			return &engine.Fault{Outcome: engine.Timeout, Detail: "too slow"}
		}
		return nil
	}
	r, err := l.Play(context.Background(), fake, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Abandoned || r.Faults[2] != (fake.runs[2]+97)/100 || r.Faults[0] != 0 {
		t.Errorf("outcome %v, faults %v after %d runs", r.Outcome, r.Faults, fake.runs[2])
	}

	fake = newFake(6, silent)
	fake.fault = func(bot, run int) *engine.Fault {
		if bot == 4 && run == 120 {
			return &engine.Fault{Outcome: engine.HostFault, Detail: "bwrap: out of processes"}
		}
		return nil
	}
	r, err = l.Play(context.Background(), fake, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Voided || !strings.Contains(r.Detail, "out of processes") || fake.runs[4] != 120 {
		t.Errorf("outcome %v (%q) after %d runs; want voided at run 120", r.Outcome, r.Detail, fake.runs[4])
	}
	res := Score([]engine.Entrant{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}, l, []GameResult{r})
	if res.Voided != 1 || res.Games != 0 {
		t.Errorf("voided game scored: %+v", res)
	}
	if got := strings.Join(res.Summary, " "); got != "0 games scored: 0 village victories, 0 mafia victories. 1 game voided by host faults (the first: host fault: bwrap: out of processes)." {
		t.Errorf("summary %q", got)
	}
}

// randomBots are fakes that play like Randy from their own per-bot generators, so a bot's
// answers depend only on the order of its own runs.
func randomBots(n int, seed uint64) *fakeBots {
	rngs := make([]*rand.Rand, n)
	for i := range rngs {
		rngs[i] = engine.NewRand(seed + uint64(i))
	}
	var f *fakeBots
	f = newFake(n, func(b int, from string) string {
		r := rngs[b]
		opts := append(append([]string(nil), f.players[b]...), "no one")
		pick := opts[r.IntN(len(opts))]
		if strings.HasPrefix(from, "It is night") {
			return pick + "\n"
		}
		switch r.IntN(4) {
		case 0:
			return "vote " + pick
		case 1:
			return fmt.Sprintf("say %d %s", r.IntN(17), pick)
		}
		return ""
	})
	return f
}

func TestTournamentReproducibleAndParallelSafe(t *testing.T) {
	entrants := make([]engine.Entrant, 7)
	for i := range entrants {
		entrants[i] = engine.Entrant{Name: fmt.Sprintf("bot-%c", 'a'+i)}
	}
	play := func(parallel int) *engine.Result {
		var calls int
		res, err := Play(context.Background(), randomBots(7, 42), entrants, 1234, Options{Games: 12, Parallel: parallel}, func(done, total int) {
			calls++
			if done != calls || total != 12 {
				t.Errorf("progress(%d, %d) at call %d", done, total, calls)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := play(1), play(1), play(4)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
		t.Fatalf("same seed, same bots, different tables:\n%+v\n%+v\n%+v", a, b, c)
	}
	if a.Games == 0 || len(a.Rows) != 7 {
		t.Fatalf("table %+v", a)
	}
	played := 0
	for _, r := range a.Rows {
		played += r.Played
	}
	if played != 7*a.Games {
		t.Errorf("rows played %d games in total, want %d", played, 7*a.Games)
	}
}

func TestPlayCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	fake := newFake(6, silent)
	fake.fault = func(bot, run int) *engine.Fault {
		if run == 30 {
			cancel()
		}
		return nil
	}
	entrants := []engine.Entrant{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}, {Name: "f"}}
	if _, err := Play(ctx, fake, entrants, 1, Options{Games: 3}, nil); err == nil {
		t.Error("a cancelled tournament returned a table")
	}
}
