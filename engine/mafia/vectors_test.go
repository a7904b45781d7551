package mafia

import (
	"math"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// The worked examples of spec §7.

func TestRolesAndSetupMessages(t *testing.T) { // §7.1
	fake := newFake(8, silent)
	g := testGame(phonetic, fake, 1)
	g.deal(g.ids("Golf", "Delta", "Alpha", "Hotel", "Echo", "Bravo", "Charlie", "Foxtrot"))
	g.setupMessages()
	want := map[string]Role{"Golf": Mafioso, "Delta": Mafioso, "Alpha": Cop, "Hotel": Doctor, "Echo": Villager}
	for name, r := range want {
		if got := g.role[g.byName[name]]; got != r {
			t.Errorf("%s is %v, want %v", name, got, r)
		}
	}
	three := "Rise and shine! Today is day 0.\nNo voting will occur today.\nBe warned: Tonight the mafia will strike.\n"
	files := map[string]string{
		"Golf":  three + "You are a member of the mafia.\nYour allies are:\nDelta\n",
		"Delta": three + "You are a member of the mafia.\nYour allies are:\nGolf\n",
		"Alpha": three + "You are the cop.\n",
		"Hotel": three + "You are the doctor.\n",
		"Echo":  three,
	}
	for name, w := range files {
		if got := g.buf[g.byName[name]].String(); got != w {
			t.Errorf("%s's day-0 file:\n%q\nwant\n%q", name, got, w)
		}
	}
	g.setup()
	for b, p := range fake.players {
		if got := strings.Join(p, "\n"); got != "Alpha\nBravo\nCharlie\nDelta\nEcho\nFoxtrot\nGolf\nHotel" {
			t.Errorf("bot %d players file = %q", b, got)
		}
	}
	if n := len(g.mafia); n != 2 {
		t.Errorf("%d mafiosi among 8", n)
	}
}

func TestMafiaCount(t *testing.T) {
	for n, want := range map[int]int{6: 2, 8: 2, 9: 3, 11: 3, 12: 4, 14: 4, 15: 5, 17: 5} {
		names := make([]string, n)
		for i := range names {
			names[i] = "P" + string(rune('a'+i))
		}
		g := testGame(names, newFake(n, silent), uint64(n))
		g.setup()
		if len(g.mafia) != want {
			t.Errorf("%d players: %d mafiosi, want %d", n, len(g.mafia), want)
		}
	}
}

func TestParsing(t *testing.T) { // §7.2
	names := []string{"Alice", "Bob", "Carl", "Echo", "Dora", "Fred"}
	cases := []struct{ in, broadcast, vote string }{
		{"vote Alice\n", "Echo has voted to lynch Alice.", "Alice"},
		{"vote Carl", "", "none"},
		{"vote Zed", "", "Bob"},
		{"vote", "", "Bob"},
		{"vote no", "", "Bob"},
		{"vote no Alice", "", "Bob"},
		{"vote no one", "Echo has voted to lynch no one.", "none"},
		{"vote Alice\nsay 1", "", "Bob"},
		{"vote Alice please", "Echo has voted to lynch Alice.", "Alice"},
		{"vote Echo", "Echo has voted to lynch Echo.", "Echo"},
		{"  vote   Alice  ", "Echo has voted to lynch Alice.", "Alice"},
		{"say 1", `Echo says "Yes"`, "Bob"},
		{"say 1 Bob", `Echo says "Bob, Yes"`, "Bob"},
		{"say 1 Bob Alice", `Echo says "Yes"`, "Bob"},
		{"say 1 Zed", "", "Bob"},
		{"say 10 Alice", `Echo says "I think this player is mafia: Alice"`, "Bob"},
		{"say 10 Alice Bob", `Echo says "Bob, I think this player is mafia: Alice"`, "Bob"},
		{"say 10 Alice Bob Carl", `Echo says "I think this player is mafia: Alice"`, "Bob"},
		{"say 11 Carl", `Echo says "Do you think this player is mafia? Carl"`, "Bob"},
		{"say 10", "", "Bob"},
		{"say 17 Alice", "", "Bob"},
		{"say x", "", "Bob"},
		{"Say 1", "", "Bob"},
		{"say -3", `Echo says "I am the doctor"`, "Bob"},
		{"say 004", `Echo says "I am a normal villager"`, "Bob"},
		{"say 016 Bob", `Echo says "Will you please use your power on this player tonight? Bob"`, "Bob"},
		{"say 7 no one", "", "Bob"},
		{"say 0", `Echo says "No"`, "Bob"},
		{"say 2", `Echo says "I am the cop"`, "Bob"},
		{"say 5 Bob", `Echo says "I trust this player: Bob"`, "Bob"},
		{"say 6 Bob", `Echo says "I think this player is suspicious: Bob"`, "Bob"},
		{"say 8 Bob", `Echo says "I think this player is the doctor: Bob"`, "Bob"},
		{"say 9 Bob", `Echo says "I think this player is a normal villager: Bob"`, "Bob"},
		{"say 12 Bob", `Echo says "I tried to save this player: Bob"`, "Bob"},
		{"say 13 Bob", `Echo says "I successfully saved this player: Bob"`, "Bob"},
		{"say 14 Bob", `Echo says "I investigated this player and found that they were mafia-aligned: Bob"`, "Bob"},
		{"say 15 Bob", `Echo says "I investigated this player and found that they were village-aligned: Bob"`, "Bob"},
		{"say 99999999999999999999999 Bob", "", "Bob"},
		{"", "", "Bob"},
		{"\x00\xff", "", "Bob"},
	}
	for _, c := range cases {
		g := testGame(names, newFake(6, silent), 1)
		g.day = 1
		g.alive[g.byName["Carl"]] = false
		echo := g.byName["Echo"]
		g.vote[echo] = g.byName["Bob"] // the previous vote, which stands when nothing happens
		g.apply(echo, c.in)
		want := ""
		if c.broadcast != "" {
			want = c.broadcast + "\n"
		}
		for _, p := range g.ids("Alice", "Echo") {
			if got := g.buf[p].String(); got != want {
				t.Errorf("%q: %s got %q, want %q", c.in, g.names[p], got, want)
			}
		}
		if got := g.buf[g.byName["Carl"]].String(); got != "" {
			t.Errorf("%q: the dead Carl was sent %q", c.in, got)
		}
		vote := "none"
		if v := g.vote[echo]; v != noTarget {
			vote = g.names[v]
		}
		if vote != c.vote {
			t.Errorf("%q: vote = %s, want %s", c.in, vote, c.vote)
		}
	}
}

func TestDayZeroIgnoresVotes(t *testing.T) {
	g := testGame(phonetic, newFake(8, silent), 1)
	echo := g.byName["Echo"]
	g.apply(echo, "vote Alpha")
	g.apply(echo, "vote no one")
	if g.vote[echo] != noTarget || g.buf[echo].Len() != 0 {
		t.Errorf("a day-0 vote had an effect: vote %d, messages %q", g.vote[echo], g.buf[echo].String())
	}
	g.apply(echo, "say 1")
	if g.buf[echo].String() != "Echo says \"Yes\"\n" {
		t.Errorf("speech on day 0: %q", g.buf[echo].String())
	}
}

func TestNightAnswers(t *testing.T) { // §7.2, last row
	g := testGame([]string{"Alice", "Bob", "Carl", "Dora", "Echo", "Fred"}, newFake(6, silent), 1)
	for in, ok := range map[string]bool{"Alice\n": true, "Alice": true, "Alice ": false, "alice": false, "vote Alice": false, "Al-ice": true, "": false} {
		if p, got := g.parseNight(in); got != ok || ok && p != g.byName["Alice"] {
			t.Errorf("night answer %q: valid = %v, want %v", in, got, ok)
		}
	}
}

func TestPlurality(t *testing.T) { // §7.3
	const A, B, C, none = 0, 1, 2, noTarget
	cases := []struct {
		votes []int
		want  int
	}{
		{[]int{B, none, A, B, A}, B},
		{[]int{A, none, B, B, A}, A},
		{[]int{none, none, A}, none},
		{[]int{A, B, C, none, none}, none},
		{[]int{A, A, A, none, none, none, none}, none},
		{[]int{none, A}, none},
		{[]int{A, none}, A},
		{[]int{C}, C},
		{nil, none},
	}
	for _, c := range cases {
		if got := plurality(c.votes, 3); got != c.want {
			t.Errorf("plurality(%v) = %d, want %d", c.votes, got, c.want)
		}
	}
}

// nightGame is §7.4's table: mafia Golf and Delta, cop Alpha, doctor Hotel.
func nightGame(act func(g *game, name, from string) string, seed uint64) (*game, *fakeBots) {
	var g *game
	fake := newFake(8, func(b int, from string) string { return act(g, g.names[b], from) })
	g = testGame(phonetic, fake, seed)
	g.deal(g.ids("Golf", "Delta", "Alpha", "Hotel", "Echo", "Bravo", "Charlie", "Foxtrot"))
	g.day = 1
	return g, fake
}

func TestNight(t *testing.T) { // §7.4
	answers := func(golf, delta, alpha, hotel string) func(*game, string, string) string {
		return func(g *game, name, from string) string {
			return map[string]string{"Golf": golf, "Delta": delta, "Alpha": alpha, "Hotel": hotel}[name]
		}
	}
	// Golf votes Alpha, Delta's "alpha" is no one: a tie, broken by the shuffle.
	seen := map[int]int{}
	for seed := range uint64(64) {
		g, fake := nightGame(answers("Alpha\n", "alpha\n", "Golf\n", "Echo\n"), seed)
		if err := g.night(); err != nil {
			t.Fatal(err)
		}
		seen[g.victim]++
		if g.copTarget != g.byName["Golf"] {
			t.Errorf("cop target %d, want Golf", g.copTarget)
		}
		for name, prompt := range map[string]string{"Golf": mafiaPrompt, "Delta": mafiaPrompt, "Alpha": copPrompt, "Hotel": doctorPrompt} {
			if got := fake.from[g.byName[name]]; got != prompt+"\n" {
				t.Errorf("%s's night from_server = %q", name, got)
			}
		}
		if n := len(fake.got[g.byName["Echo"]]); n != 0 {
			t.Errorf("a villager was written to at night")
		}
	}
	if len(seen) != 2 || seen[g0("Alpha")] == 0 || seen[noTarget] == 0 {
		t.Errorf("tie between Alpha and no one resolved as %v over 64 seeds; want both", seen)
	}
	for _, c := range []struct {
		doctor, victim string
	}{{"Alpha", ""}, {"Hotel", "Alpha"}, {"Alpha ", "Alpha"}, {"", "Alpha"}} {
		g, _ := nightGame(answers("Alpha", "Alpha", "Nobody", c.doctor), 7)
		if err := g.night(); err != nil {
			t.Fatal(err)
		}
		want := noTarget
		if c.victim != "" {
			want = g.byName[c.victim]
		}
		if g.victim != want {
			t.Errorf("doctor answers %q: victim %d, want %d", c.doctor, g.victim, want)
		}
		if g.copTarget != noTarget {
			t.Errorf("an invalid investigation set target %d", g.copTarget)
		}
	}
	// A mafioso may vote for a mafioso; a dead player's name is a vote for no one.
	g, _ := nightGame(answers("Delta", "Delta", "", ""), 3)
	_ = g.night()
	if g.victim != g.byName["Delta"] {
		t.Errorf("mafia voting Delta: victim %d", g.victim)
	}
	g, _ = nightGame(answers("Echo", "Echo", "", ""), 3)
	g.alive[g.byName["Echo"]] = false
	_ = g.night()
	if g.victim != noTarget {
		t.Errorf("mafia voting for the dead Echo: victim %d", g.victim)
	}
}

func g0(name string) int {
	for i, n := range phonetic {
		if n == name {
			return i
		}
	}
	return -1
}

func TestDawn(t *testing.T) { // §7.4, dawn
	g, _ := nightGame(nil, 1)
	g.day = 2
	order := g.dayOrder()
	g.victim = g.byName["Alpha"]
	g.copTarget = g.byName["Golf"]
	if g.dawn(&order) {
		t.Fatal("the game ended at the cop's death")
	}
	want := "Dawn of day 2.\nLast night, Alpha was killed. They were the cop.\n"
	for _, p := range order {
		if got := g.buf[p].String(); got != want {
			t.Errorf("%s's dawn: %q", g.names[p], got)
		}
	}
	if len(order) != 7 || g.alive[g.byName["Alpha"]] {
		t.Errorf("Alpha still among the living: %v", order)
	}

	// The cop alive: its investigation, and no victim line when nobody was killed.
	g, _ = nightGame(nil, 1)
	order = g.dayOrder()
	g.copTarget = g.byName["Delta"]
	g.dawn(&order)
	if got := g.buf[g.byName["Alpha"]].String(); got != "Dawn of day 1.\nInvestigations showed that Delta is mafia-aligned.\n" {
		t.Errorf("cop's dawn: %q", got)
	}
	if got := g.buf[g.byName["Echo"]].String(); got != "Dawn of day 1.\n" {
		t.Errorf("villager's dawn: %q", got)
	}
	g, _ = nightGame(nil, 1)
	order = g.dayOrder()
	g.copTarget = g.byName["Hotel"]
	g.victim = g.byName["Bravo"]
	g.dawn(&order)
	if got := g.buf[g.byName["Alpha"]].String(); got != "Dawn of day 1.\nLast night, Bravo was killed. They were a villager.\nInvestigations showed that Hotel is village-aligned.\n" {
		t.Errorf("cop's dawn: %q", got)
	}
}

func TestLynchAnnouncement(t *testing.T) { // §7.6
	g, fake := nightGame(func(*game, string, string) string { return "ignored" }, 1)
	order := g.dayOrder()
	for _, p := range order {
		g.vote[p] = g.byName["Bravo"]
	}
	if err := g.lynch(&order); err != nil {
		t.Fatal(err)
	}
	for _, p := range order {
		if got := fake.from[p]; got != "The town has killed Bravo!\nThey were a villager.\n" {
			t.Errorf("%s read %q", g.names[p], got)
		}
		if fake.runs[p] != 1 || fake.to[p] != "ignored" {
			t.Errorf("%s: %d result runs, to_server %q (want one run, output left in place)", g.names[p], fake.runs[p], fake.to[p])
		}
		if g.vote[p] != noTarget {
			t.Errorf("%s's vote not reset", g.names[p])
		}
	}
	if b := g.byName["Bravo"]; g.alive[b] || fake.runs[b] != 0 {
		t.Errorf("the lynched Bravo is alive or was run (%d runs)", fake.runs[b])
	}
}

func TestScores(t *testing.T) { // §7.7
	entrants := []engine.Entrant{{Name: "A"}, {Name: "B"}, {Name: "C"}}
	res := table(entrants, []tally{
		{villageGames: 60, villageWins: 36, mafiaGames: 40, mafiaWins: 20},
		{villageGames: 60, villageWins: 30, mafiaGames: 40, mafiaWins: 16},
		{villageGames: 60, villageWins: 24, mafiaGames: 40, mafiaWins: 12},
	})
	want := []struct {
		bot   string
		score float64
		cell  string
	}{{"A", 0.2, "+0.200"}, {"B", 0, "0.000"}, {"C", -0.2, "-0.200"}}
	for i, w := range want {
		r := res.Rows[i]
		if r.Bot != w.bot || math.Abs(r.Score-w.score) > 1e-9 || r.Cells[0] != w.cell {
			t.Errorf("row %d = %s %v %q, want %s %v %q", i, r.Bot, r.Score, r.Cells[0], w.bot, w.score, w.cell)
		}
	}
	if got := res.Rows[0].Cells; strings.Join(got, "|") != "+0.200|36/60|0.600|20/40|0.500|0.560|100" {
		t.Errorf("A's cells = %v", got)
	}

	// A bot never drawn as mafia: its mafia term is 0 and it is left out of the mafia mean.
	res = table([]engine.Entrant{{Name: "X"}, {Name: "Y"}, {Name: "Z"}}, []tally{
		{villageGames: 2, villageWins: 1},
		{villageGames: 1, villageWins: 1, mafiaGames: 1, mafiaWins: 1},
		{villageGames: 1, villageWins: 0, mafiaGames: 1, mafiaWins: 0},
	})
	scores := map[string]float64{}
	for _, r := range res.Rows {
		scores[r.Bot] = r.Score
	}
	if math.Abs(scores["X"]-0) > 1e-9 || math.Abs(scores["Y"]-1) > 1e-9 || math.Abs(scores["Z"]+1) > 1e-9 {
		t.Errorf("scores = %v, want X 0, Y +1, Z -1", scores)
	}
	if res.Rows[1].Cells[4] != "–" {
		t.Errorf("X's mafia ratio cell = %q", res.Rows[1].Cells[4])
	}

	// Equal scores: higher overall win rate first, then the name.
	// (0.75 + 0.25, win rate 4/8; 0.25 + 0.75, win rate 7/12; 0.5 + 0.5, win rate 2/4.)
	res = table([]engine.Entrant{{Name: "c"}, {Name: "a"}, {Name: "b"}}, []tally{
		{villageGames: 2, villageWins: 1, mafiaGames: 2, mafiaWins: 1},
		{villageGames: 4, villageWins: 3, mafiaGames: 4, mafiaWins: 1},
		{villageGames: 4, villageWins: 1, mafiaGames: 8, mafiaWins: 6},
	})
	if got := res.Rows[0].Bot + res.Rows[1].Bot + res.Rows[2].Bot; got != "bac" {
		t.Errorf("tie order = %s, want bac (win rate, then name)", got)
	}
}

func TestNames(t *testing.T) { // §1.6 and §5.2
	cases := []struct{ in, want []string }{
		{[]string{"mafia-game-bot", "no", "!!!", "Randy1", "a_b", "ab", "No"},
			[]string{"mafiagamebot", "no2", "Bot", "Randy1", "ab", "ab2", "No"}},
		{[]string{"Zulu"}, []string{"Zulu", "Randy1", "Randy2", "Randy3", "Randy4", "Randy5"}},
		{[]string{"Randy2", "Cop Trust", "ümlaut"}, []string{"Randy2", "CopTrust", "mlaut", "Randy1", "Randy3", "Randy4"}},
		{[]string{"x", "x", "x2"}, []string{"x", "x2", "x22", "Randy1", "Randy2", "Randy3"}},
	}
	for _, c := range cases {
		l := NewLineup(c.in)
		if strings.Join(l.Names, ",") != strings.Join(c.want, ",") || l.Bots != len(c.in) {
			t.Errorf("NewLineup(%q) = %q (%d bots), want %q", c.in, l.Names, l.Bots, c.want)
		}
	}
}
