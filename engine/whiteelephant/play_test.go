package whiteelephant

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// wobbly steals the best stealable present on odd decisions of its own, else opens: a
// deterministic script with some variety.
func wobbly() script {
	n := 0
	return func(v view) any {
		n++
		if n%2 == 1 {
			return greedy(v)
		}
		return nil
	}
}

var opensRe = regexp.MustCompile(` opens a present worth (\S+)\.$`)

// Spec §2.7 invariants over a whole game, read from the driver's log: n openings per round,
// the scores add up to the draws, the winner is the first to reach the target.
func TestGameInvariants(t *testing.T) {
	f := newFake(greedy, nice, wobbly(), greedy)
	var drawn float64
	openings, rounds, players := 0, 0, 0
	check := func() {
		if rounds > 0 && openings != players {
			t.Errorf("round %d: %d openings for %d players", rounds, openings, players)
		}
	}
	trace := func(_ int, line string) {
		switch {
		case line == "[!!!] A new round begins with this turn order:":
			check()
			rounds++
			openings, players = 0, 0
		case strings.Contains(line, "(Controlled by "):
			players++
		case opensRe.MatchString(line):
			v, err := strconv.ParseFloat(opensRe.FindStringSubmatch(line)[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			drawn += v
			openings++
		}
	}
	res, err := Play(t.Context(), f, entrants("GreedyBot", "NiceBot", "Wobbly", "Greedy2"), Options{Seed: 42, WinningScore: 30, Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	check()
	var total float64
	for _, r := range res.Rows {
		total += r.Score
		if r.Cells[1] != strconv.Itoa(rounds) {
			t.Errorf("%s played %s rounds, the log shows %d", r.Bot, r.Cells[1], rounds)
		}
	}
	if math.Abs(total-drawn) > 1e-9 {
		t.Errorf("scores add up to %v, draws to %v", total, drawn)
	}
	if res.Rows[0].Score < 30 || res.Rows[1].Score >= res.Rows[0].Score {
		t.Errorf("rows %+v: the leader must have reached 30", res.Rows)
	}
	if !strings.Contains(res.Summary[1], res.Rows[0].Bot+" is the winner!") || !strings.Contains(res.Appendix, fmt.Sprintf(" 1. %-20s%7.3f", res.Rows[0].Bot, res.Rows[0].Score)) {
		t.Errorf("summary %q appendix %q", res.Summary, res.Appendix)
	}
}

// Same seed and bots give the same table; another seed gives another.
func TestDeterministic(t *testing.T) {
	run := func(seed uint64) *engine.Result {
		res, err := Play(t.Context(), newFake(greedy, nice, wobbly()), entrants("G", "N", "W"), Options{Seed: seed, WinningScore: 40, Games: 3, Concurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(7), run(7), run(8)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different tables:\n%+v\n%+v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 7 and 8 gave the same table %+v", a)
	}
}

// Several games: mean scores, wins add up to the games played.
func TestSeveralGames(t *testing.T) {
	res, err := Play(t.Context(), newFake(greedy, nice, nice), entrants("G", "N1", "N2"), Options{Seed: 1, WinningScore: 10, Games: 5, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	wins := 0
	for _, r := range res.Rows {
		wins += r.Wins
		if r.Played != 5 || r.Cells[2] != "5" {
			t.Errorf("row %+v: want 5 games", r)
		}
	}
	if res.Games != 5 || wins != 5 || res.Columns[0] != "Mean score" || res.Rows[0].Bot != "G" {
		t.Errorf("games %d wins %d columns %v leader %s", res.Games, wins, res.Columns, res.Rows[0].Bot)
	}
}

// Spec §1.3 (engine addition): a later class with a used name is excluded and reported.
func TestDuplicateNamesExcluded(t *testing.T) {
	f := newFake(greedy, nice, greedy)
	res, err := Play(t.Context(), f, entrants("GreedyBot", "NiceBot", "GreedyBot"), Options{Seed: 5, WinningScore: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Errorf("%d rows, want 2", len(res.Rows))
	}
	for _, v := range f.turns {
		if v.Bot == 2 {
			t.Fatal("the excluded duplicate was asked to move")
		}
	}
	if !strings.Contains(strings.Join(res.Summary, "\n"), "GreedyBot (competitor 3) is excluded") {
		t.Errorf("summary %q does not report the duplicate", res.Summary)
	}
}

// Spec §4: more than 69 competitors extend the name pool.
func TestNamePoolExtended(t *testing.T) {
	bots := make([]script, 72)
	names := make([]string, 72)
	for i := range bots {
		bots[i], names[i] = nice, fmt.Sprintf("Bot%d", i)
	}
	f := newFake(bots...)
	res, err := Play(t.Context(), f, entrants(names...), Options{Seed: 2, WinningScore: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, v := range f.turns[:72] {
		if seen[v.Name] {
			t.Errorf("name %s dealt twice in one round", v.Name)
		}
		seen[v.Name] = true
	}
	if !seen["Guest70"] || !seen["Guest72"] || !seen["Zachary"] || len(res.Rows) != 72 {
		t.Errorf("names %v, rows %d; want the whole extended pool", seen, len(res.Rows))
	}
}
