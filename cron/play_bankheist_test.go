package cron

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Built-in bots are the author's examples played in Go; a bot that fails is counted in its
// accounting with the input that broke it.
func TestBankHeistBuiltinsAndFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 5\n")
	env.Challenge.Baselines = true
	builtins, err := a.Builtins(ctx, &env.Env)
	if err != nil || len(builtins) != 11 {
		t.Fatalf("%d builtins, %v", len(builtins), err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte("echo 'a lot'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Bots = append(builtins, engine.Bot{Entrant: engine.Entrant{Name: "Garbage"}, Dir: dir, Run: []string{"bash", "bot.sh"}})
	env.Run = env.resolve(0).withSeed(1)
	played, err := playRun(ctx, env, a, true)
	if err != nil {
		t.Fatal(err)
	}
	games := played.Result.Games
	if games != played.Games || games != 5 { // N = 5: 5 to trunc(5.5) games
		t.Fatalf("%d games played of %d planned", games, played.Games)
	}
	st := played.Stats[11]
	if st.Faults() != games || st.Counts()[engine.BadOutput] != games {
		t.Fatalf("garbage bot counts %v, want %d bad outputs", st.Counts(), games)
	}
	if f := st.First(); f == nil || !strings.Contains(f.Input, `"round":1`) || !strings.Contains(f.Input, `"args":"0 1 `) {
		t.Fatalf("first fault %+v", f)
	}
	for i := range 11 {
		if n := played.Stats[i].Faults(); n != 0 {
			t.Errorf("builtin %s: %d faults", env.Bots[i].Name, n)
		}
	}
}

// A bot that keeps a counter in its directory (the rules forbid it; nothing prevents it)
// bets by how many decisions it made before. Tournaments played side by side must not see
// each other's files: the table is the one of a run that plays them one at a time.
func TestBankHeistUnitsKeepBotFilesApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bot := "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\nif [ \"$2\" = 1 ]; then echo $((n % 97)); else echo stick; fi\n"
	play := func(workers int) *engine.Result {
		env, a := adapterEnv(t, "bankheist", "games_per_tournament: 4\n")
		env.Challenge.Concurrency = workers
		for _, n := range []string{"A", "B", "C"} {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte(bot), 0o644); err != nil {
				t.Fatal(err)
			}
			env.Bots = append(env.Bots, engine.Bot{Entrant: engine.Entrant{Name: n}, Dir: dir, Run: []string{"sh", "bot.sh"}})
		}
		env.Run = env.resolve(16).withSeed(5) // four tournaments
		played, err := playRun(ctx, env, a, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range env.Bots {
			if _, err := os.Stat(filepath.Join(b.Dir, "count")); err == nil {
				t.Errorf("bot %s wrote into its prepared directory", b.Name)
			}
		}
		return played.Result
	}
	one, four := play(1), play(4)
	if !reflect.DeepEqual(one.Rows, four.Rows) {
		t.Errorf("one at a time:\n%+v\nfour side by side:\n%+v", one.Rows, four.Rows)
	}
}

// The first fault shown for a bot is the first in tournament order, not whichever
// tournament played beside it happened to fault first.
func TestBankHeistFirstFaultInTournamentOrder(t *testing.T) {
	t.Parallel()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 3\n")
	env.Challenge.Concurrency = 4
	dir := t.TempDir()
	// Random delays: which tournament faults first in time is left to chance.
	bot := "sleep 0.$((RANDOM % 4)); echo 'not a number'\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte(bot), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Bots = []engine.Bot{{Entrant: engine.Entrant{Name: "Garbage"}, Dir: dir, Run: []string{"bash", "bot.sh"}}}
	env.Run = env.resolve(12).withSeed(3) // four tournaments
	played, err := playRun(context.Background(), env, a, true)
	if err != nil {
		t.Fatal(err)
	}
	if f := played.Stats[0].First(); f == nil || !strings.Contains(f.Input, `"tournament":0,`) {
		t.Errorf("first fault %+v, want tournament 0's", f)
	}
	if n, want := played.Stats[0].Faults(), played.Result.Games; n < want {
		t.Errorf("%d faults counted over %d games", n, want)
	}
}

// --games N that Bank Heist cannot play near enough (its tournaments are indivisible: 20
// games asked played one tournament of 1,071, silently) is refused with what it would play
// and what to do; a number it can play, or a shorter tournament set in the options, is not.
func TestAskedGamesTheEngineCannotPlayAreRefused(t *testing.T) {
	t.Parallel()
	env, a := adapterEnv(t, "bankheist", "")
	env.Challenge.Baselines = true
	builtins, err := a.Builtins(context.Background(), &env.Env)
	if err != nil {
		t.Fatal(err)
	}
	env.Bots = builtins
	for asked, ok := range map[int]bool{20: false, 1500: false, 1000: true, 3000: true} {
		env.Run = env.resolve(asked).withSeed(1)
		err := checkAskedGames(env, asked)
		if (err == nil) != ok {
			t.Errorf("--games %d: %v, want accepted %v", asked, err, ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "indivisible units") || !strings.Contains(err.Error(), "nothing was played")) {
			t.Errorf("--games %d: unclear refusal: %v", asked, err)
		}
	}
	short, _ := adapterEnv(t, "bankheist", "games_per_tournament: 20\n")
	short.Bots, short.Run = builtins, short.resolve(20).withSeed(1)
	if err := checkAskedGames(short, 20); err != nil {
		t.Errorf("a shorter tournament set in the options: %v", err)
	}
	forty, _ := adapterEnv(t, "forty", "")
	forty.Run = forty.resolve(7)
	if err := checkAskedGames(forty, 7); err != nil {
		t.Errorf("forty plays any number: %v", err)
	}
}

// A bot whose every decision faults is benched after limits.fault_streak of them in a row
// (20 by default) for the rest of its tournament: it stops costing a launch (and, for a
// sleeper, its whole timeout) per decision, its later decisions get the default as
// timeouts that say why, and the board knows from which game.
func TestBankHeistBenchesAFaultingBot(t *testing.T) {
	t.Parallel()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 30\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte("echo 'a lot'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := t.TempDir()
	if err := os.WriteFile(filepath.Join(good, "bot.sh"), []byte("echo 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Bots = []engine.Bot{{Entrant: engine.Entrant{Name: "Garbage"}, Dir: dir, Run: []string{"bash", "bot.sh"}},
		{Entrant: engine.Entrant{Name: "Good"}, Dir: good, Run: []string{"bash", "bot.sh"}}}
	env.Run = env.resolve(0).withSeed(1)
	played, err := playRun(context.Background(), env, a, true)
	if err != nil {
		t.Fatal(err)
	}
	st := played.Stats[0]
	b := st.Bench()
	decisions := st.Faults() // every one of its decisions faulted
	if b == nil || b.Streak != 20 || b.Calls != decisions-20 || b.Calls == 0 {
		t.Fatalf("bench %+v after %d decisions; want benched after a streak of 20, the rest sat out", b, decisions)
	}
	if c := st.Counts(); c[engine.BadOutput] != 20 || c[engine.Timeout] != decisions-20 {
		t.Errorf("counts %v: want 20 bad outputs, then timeouts", c)
	}
	if played.Stats[1].Bench() != nil || played.Stats[1].Faults() != 0 {
		t.Errorf("the good bot: bench %+v, %d faults", played.Stats[1].Bench(), played.Stats[1].Faults())
	}
}
