package ruins

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/pyrand"
)

// §7.4: generator and game creation.
func TestGameCreation(t *testing.T) {
	g := NewGame(big.NewInt(12345), []Seat{{"EagerThief", 0}, {"Chad", 1}, {DrunkardClass, -1}})
	var names []string
	var firsts []float64
	for _, a := range g.Advs {
		names = append(names, a.Name)
		firsts = append(firsts, pyrand.New(a.Seed).Random())
	}
	if want := []string{"Ken the Wizard", "Emma Einstein DDS", "Joffrey the Impaler"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if want := []float64{0.45517740165766163, 0.50304952744024, 0.5384621396649648}; !reflect.DeepEqual(firsts, want) {
		t.Errorf("first self.random.random() = %v, want %v", firsts, want)
	}
	want := []Treasure{{"Treasure #001", 32, 3}, {"Treasure #002", 39, 9}, {"Treasure #003", 21, 7}}
	if got := g.Room(1); !reflect.DeepEqual(got, want) {
		t.Errorf("room 1 = %v, want %v", got, want)
	}
	if s := want[0].String(); s != "Treasure #001 ($32, 3kg)" {
		t.Errorf("treasure text %q", s)
	}
}

// §7.5: a whole game with the author's bots.
func TestWholeGame(t *testing.T) {
	ex := newGoExchanger([]goBot{eagerThief, greedyBastard, chad})
	seats := []Seat{{"EagerThief", 0}, {"GreedyBastard", 1}, {"Chad", 2}, {DrunkardClass, -1}, {DrunkardClass, -1}}
	var log []string
	res := playOne(ex, seats, big.NewInt(12345), func(s string) { log = append(log, s) })
	if res.Voided || res.Turns != 100 || res.Rooms != 101 {
		t.Fatalf("voided %v (%s), %d turns, %d rooms; want 100 turns, 101 rooms", res.Voided, res.Why, res.Turns, res.Rooms)
	}
	got := tableOf(res)
	want := strings.TrimSpace(`
Drunkard|Tyrion Rockbell|$542|9|46|34|5
EagerThief|Ken the Wizard|$509|11|49|22|4
Drunkard|Kent the Untamed|$449|9|45|35|3
GreedyBastard|Emma Einstein DDS|DEAD|0|0|0|0
Chad|Joffrey the Impaler|DEAD|0|0|0|0`)
	if got != want {
		t.Errorf("final table:\n%s\nwant:\n%s", got, want)
	}
	// GreedyBastard died in room 5; Chad collapsed in the doorway of room 101 on turn 100.
	if !containsLine(log, "Emma Einstein DDS (GreedyBastard) went all out") && !containsLine(log, "Emma Einstein DDS (GreedyBastard) tried") {
		t.Logf("log excerpt: %q", grep(log, "GreedyBastard"))
	}
	if !containsLine(log, "Joffrey the Impaler (Chad) collapsed in the doorway to room #101 and died of exhaustion") {
		t.Errorf("Chad's death is not in the log: %q", grep(log, "(Chad)"))
	}
	if len(ex.inst) != 0 {
		t.Errorf("%d instances not ended", len(ex.inst))
	}
}

// tableOf renders a game's ranking as the original's table rows.
func tableOf(res GameResult) string {
	var b strings.Builder
	for _, s := range res.Ranked {
		a := s.Adv
		money := fmt.Sprintf("$%d", value(a.Inventory))
		if !a.Alive() {
			money = "DEAD"
		}
		fmt.Fprintf(&b, "%s|%s|%s|%d|%d|%d|%d\n", a.Class, a.Name, money, len(a.Inventory), weight(a.Inventory), a.Stamina, s.Points)
	}
	return strings.TrimSpace(b.String())
}

func containsLine(log []string, s string) bool {
	for _, l := range log {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func grep(log []string, s string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// §7.6: the whole tournament with the 12 test bots and seed K48XMESC.
func TestWholeTournament(t *testing.T) {
	if testing.Short() {
		t.Skip("353 games")
	}
	bots, fns := testBots()
	ex := newGoExchanger(fns)
	ex.direct = true
	res, err := Play(context.Background(), ex, bots, Options{SeedString: "K48XMESC"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 24+329 || res.Voided != 0 {
		t.Errorf("games %d (voided %d), want 24 + 329", res.Games, res.Voided)
	}
	got := rowsOf(res)
	want := strings.TrimSpace(`
EagerThief 2369 7.201 329 140
EagerClone3 2319 7.049 329 145
EagerClone4 2315 7.036 329 168
EagerClone2 2304 7.003 329 151
EagerClone5 2276 6.918 329 154
EagerClone1 2274 6.912 329 144
EagerClone0 2252 6.845 329 153
EmoKid 0 0.000 329 0
Chad 0 0.000 329 0
Coward 0 0.000 329 0
GreedyBastard – – 0 0
MischievousKid – – 0 0`)
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	for _, r := range res.Rows {
		if r.Bot == "MischievousKid" && r.Errors != 20 {
			t.Errorf("MischievousKid faults = %d, want 20 (one per pool game)", r.Errors)
		}
		if r.Bot == "EagerThief" && r.Played != 20+329 {
			t.Errorf("EagerThief played %d games", r.Played)
		}
	}
	if !strings.Contains(strings.Join(res.Summary, "\n"), "Final: 329 games") {
		t.Errorf("summary %q", res.Summary)
	}
}

// §7.6, second part: three bots, seven Drunkards, the lead is reached after seven games.
func TestSmallTournament(t *testing.T) {
	bots := []engine.Entrant{{Name: "EagerThief"}, {Name: "Chad"}, {Name: "GreedyBastard"}}
	ex := newGoExchanger([]goBot{eagerThief, chad, greedyBastard})
	res, err := Play(context.Background(), ex, bots, Options{SeedString: "K48XMESC", Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := "EagerThief 55 7.857 7\nChad 0 0.000 7\nGreedyBastard 0 0.000 7"
	if got := rowsOf(res); got != want || res.Games != 7 {
		t.Errorf("%d games, table:\n%s\nwant 7 games:\n%s", res.Games, got, want)
	}
	if !strings.Contains(strings.Join(res.Summary, "\n"), "Filled up with 7 Drunkards") {
		t.Errorf("summary %q", res.Summary)
	}
}

func rowsOf(res *engine.Result) string {
	var b strings.Builder
	for _, r := range res.Rows {
		fmt.Fprintf(&b, "%s %s\n", r.Bot, strings.Join(r.Cells, " "))
	}
	return strings.TrimSpace(b.String())
}
