package bankheist

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

func examplesConfig(seed uint64, tournaments, n int) (Config, Strategies) {
	var cfg Config
	var st Strategies
	for i, e := range Examples {
		cfg.Bots = append(cfg.Bots, engine.Entrant{Name: e.Name})
		st.Bots = append(st.Bots, e.Strategy)
		st.Seeds = append(st.Seeds, uint64(i)+1)
	}
	cfg.Seed, cfg.Tournaments, cfg.GamesPerTournament = seed, tournaments, n
	return cfg, st
}

func scores(r *engine.Result) map[string]float64 {
	m := map[string]float64{}
	for _, row := range r.Rows {
		m[row.Bot] = row.Score
	}
	return m
}

// TestExampleTournament plays one full tournament of the author's example bots and checks
// the shape the spec's sanity references show (§6).
func TestExampleTournament(t *testing.T) {
	if testing.Short() {
		t.Skip("full tournament")
	}
	cfg, st := examplesConfig(115303, 1, 0)
	res, err := Play(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	games := res.Games
	if games < 1000 || games > 1100 {
		t.Fatalf("%d games, want 1000–1100", games)
	}
	s := scores(res)
	for _, r := range res.Rows {
		t.Logf("%-18s %12.0f faults %d", r.Bot, r.Score, r.Errors)
		if r.Errors != 0 {
			t.Errorf("%s: %d faults from a well-behaved bot", r.Bot, r.Errors)
		}
	}
	// A bot that never bets lives on its paycheck alone: 240 × (G + 1).
	if want := float64(240 * (games + 1)); s["Lurker"] != want {
		t.Errorf("Lurker %v, want %v", s["Lurker"], want)
	}
	if res.Rows[0].Bot != "RaysFive01K" {
		t.Errorf("winner %s, want RaysFive01K far ahead", res.Rows[0].Bot)
	}
	for _, b := range []string{"HeCKuSumer", "MonisAddiction", "OC'sRandomTpyos"} {
		if s[b] > 20000 {
			t.Errorf("%s has %v, want near zero", b, s[b])
		}
	}
}

// TestNeverBetting checks the whole pipeline on the spec's invariant: a bot that never bets
// ends a G-game tournament with exactly 240 × (G + 1), whatever the rabble does.
func TestNeverBetting(t *testing.T) {
	lurk := func(Args, *rand.Rand) string { return "0" }
	cfg := Config{Bots: []engine.Entrant{{Name: "A"}, {Name: "B"}}, Seed: 9, GamesPerTournament: 40, Tournaments: 2}
	res, err := Play(context.Background(), cfg, Strategies{Bots: []Strategy{lurk, lurk}})
	if err != nil {
		t.Fatal(err)
	}
	g1, g2 := gamesIn(engine.GameSeed(9, 0), 40), gamesIn(engine.GameSeed(9, 1), 40)
	want := float64(240*(g1+1) + 240*(g2+1))
	for _, r := range res.Rows {
		if r.Score != want || r.Wins != 2 || r.Played != g1+g2 {
			t.Fatalf("%s: score %v wins %d played %d, want %v 2 %d", r.Bot, r.Score, r.Wins, r.Played, want, g1+g2)
		}
	}
	if res.Games != g1+g2 || PlannedGames(cfg) != g1+g2 {
		t.Fatalf("games %d planned %d, want %d", res.Games, PlannedGames(cfg), g1+g2)
	}
}

// recorder is a Decider that plays example strategies and keeps every call.
type recorder struct {
	inner Strategies
	mu    sync.Mutex
	calls []Call
}

func (r *recorder) Decide(ctx context.Context, c Call) (string, *engine.Fault) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return r.inner.Decide(ctx, c)
}

func TestArgumentLists(t *testing.T) {
	cfg, st := examplesConfig(5, 1, 30)
	rec := &recorder{inner: st}
	if _, err := Play(context.Background(), cfg, rec); err != nil {
		t.Fatal(err)
	}
	n := len(cfg.Bots)
	type key struct{ game, round int }
	perRound := map[key][]Args{}
	for _, c := range rec.calls {
		if len(c.Args) != 31 {
			t.Fatalf("%d arguments", len(c.Args))
		}
		a, err := ParseArgs(c.Args)
		if err != nil {
			t.Fatal(err)
		}
		if a.Game != c.Game || a.Round != c.Round {
			t.Fatalf("call %+v carries game %d round %d", c, a.Game, a.Round)
		}
		perRound[key{a.Game, a.Round}] = append(perRound[key{a.Game, a.Round}], a)
		switch a.Round {
		case 1:
			if a.Stickers != 0 || a.Bet != 0 || a.Bank != bankIndex(a.Bettors, a.Total) || a.Asked >= a.Players || a.Players < n {
				t.Fatalf("round-1 args %v", c.Args)
			}
		case 2:
			if a.Players != a.Bettors || a.Bet <= 0 || a.Stickers > a.Asked || a.Asked >= a.Bettors {
				t.Fatalf("round-2 args %v", c.Args)
			}
		}
		if a.Game == 0 { // everybody fresh (§2.4: ranks 1, mean 240, MAD 0, max 240)
			want := "240 1 1 240 0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
			if got := strings.Join(c.Args[10:], " "); c.Args[8] != "240" || got != want {
				t.Fatalf("game 0 args %v", c.Args)
			}
		}
	}
	for k, as := range perRound {
		if k.round == 1 {
			if len(as) != n {
				t.Fatalf("game %d: %d round-1 calls for %d bots", k.game, len(as), n)
			}
			// Bets only grow the running totals, in call order.
			for i := 1; i < len(as); i++ {
				if as[i].Asked <= as[i-1].Asked || as[i].Bettors < as[i-1].Bettors || as[i].Total < as[i-1].Total {
					t.Fatalf("game %d: round-1 totals go backwards: %+v then %+v", k.game, as[i-1], as[i])
				}
			}
			continue
		}
		for _, a := range as {
			if a.Total != as[0].Total || a.Bank != as[0].Bank {
				t.Fatalf("game %d: round-2 calls disagree on total or bank", k.game)
			}
		}
	}
}

// TestDeterminism: same seed and bots give the same table, whatever the number of workers;
// another seed gives another table.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64, workers int) *engine.Result {
		cfg, st := examplesConfig(seed, 4, 60)
		cfg.Workers = workers
		res, err := Play(context.Background(), cfg, st)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(1, 1), run(1, 4), run(2, 2)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("1 worker and 4 workers differ:\n%+v\n%+v", a.Rows, b.Rows)
	}
	if reflect.DeepEqual(a.Rows, c.Rows) {
		t.Fatal("seeds 1 and 2 gave the same table")
	}
	if a.Appendix == "" {
		t.Fatal("no per-tournament appendix for 4 tournaments")
	}
}

// faulty is a Decider whose bots fail in scripted ways.
type faulty struct{ mode []string }

func (f faulty) Decide(_ context.Context, c Call) (string, *engine.Fault) {
	switch f.mode[c.Bot] {
	case "crash":
		return "", &engine.Fault{Outcome: engine.Crash, Detail: "exit status 1"}
	case "garbage":
		if c.Round == 1 {
			return "lots", nil
		}
		return "!guncheck", nil
	case "crash2": // bets, then crashes in round 2
		if c.Round == 1 {
			return "100", nil
		}
		return "", &engine.Fault{Outcome: engine.Timeout}
	case "host":
		if c.Game%2 == 1 {
			return "", &engine.Fault{Outcome: engine.HostFault, Detail: "sandbox"}
		}
	}
	return "0", nil
}

func TestFaults(t *testing.T) {
	cfg := Config{Bots: []engine.Entrant{{Name: "crash"}, {Name: "garbage"}, {Name: "crash2"}}, Seed: 3, GamesPerTournament: 20}
	res, err := Play(context.Background(), cfg, faulty{mode: []string{"crash", "garbage", "crash2"}})
	if err != nil {
		t.Fatal(err)
	}
	games := res.Games
	for _, r := range res.Rows {
		if r.Errors != games { // one per game: round 1 for crash and garbage, round 2 for crash2
			t.Errorf("%s: %d faults, want %d", r.Bot, r.Errors, games)
		}
		// Faults mean bet 0 (round 1) or stick with bet 0 (round 2): nobody ever stakes
		// anything, so everyone is paid every game (a failed round 2 still gets paid).
		if r.Score != float64(240*(games+1)) {
			t.Errorf("%s: %v credits, want %d", r.Bot, r.Score, 240*(games+1))
		}
	}

	// Host faults void their games and nothing else.
	cfg = Config{Bots: []engine.Entrant{{Name: "host"}}, Seed: 3, GamesPerTournament: 20}
	res, err = Play(context.Background(), cfg, faulty{mode: []string{"host"}})
	if err != nil {
		t.Fatal(err)
	}
	total := gamesIn(engine.GameSeed(3, 0), 20)
	if res.Voided != total/2 || res.Games != total-total/2 || res.Rows[0].Errors != 0 {
		t.Fatalf("voided %d played %d errors %d of %d", res.Voided, res.Games, res.Rows[0].Errors, total)
	}
	if got, want := res.Rows[0].Score, float64(240*(res.Games+1)); got != want {
		t.Fatalf("score %v, want %v (voided games pay nothing)", got, want)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg, st := examplesConfig(1, 2, 10)
	if _, err := Play(ctx, cfg, st); err == nil {
		t.Fatal("cancelled contest returned no error")
	}
}

func TestGameLog(t *testing.T) {
	cfg, st := examplesConfig(1, 1, 10)
	var logs []string
	cfg.GameLog = func(tn, g int, text string) { logs = append(logs, text) }
	res, err := Play(context.Background(), cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != res.Games {
		t.Fatalf("%d logs for %d games", len(logs), res.Games)
	}
	want := "#####GAME 0: "
	if logs[0][:len(want)] != want {
		t.Fatalf("log starts %q", logs[0][:40])
	}
}

// BenchmarkEngine plays full tournaments (1000–1100 games) of the example bots written in
// Go: the engine's own cost, without processes.
func BenchmarkEngine(b *testing.B) {
	games := 0
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		cfg, st := examplesConfig(uint64(i), 1, 0)
		res, err := Play(context.Background(), cfg, st)
		if err != nil {
			b.Fatal(err)
		}
		games += res.Games
	}
	b.ReportMetric(float64(games)/time.Since(start).Seconds(), "games/s")
}
