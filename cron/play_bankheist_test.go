package cron

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// The bundled Bank Heist snapshot through the argv adapter: answers in Python 3, Python 2, C
// (one of them two files) and Bash are built and validated, the broken ones are refused
// with a reason, and the rest play one tournament of two games as real processes (every
// decision is a process: a game is a few hundred launches).
func TestBankHeistSnapshot(t *testing.T) {
	ctx := context.Background()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 2\n")
	needLanguage(t, env, "python2")
	patient(env.Challenge) // no faults expected
	refused := enterSnapshot(t, env, a, 115303)
	for id, want := range map[int64]string{
		115853: "compile error",                                                                                                              // Overflower, C
		115901: "no code block",                                                                                                              // Pacifist, Python 3
		116020: `round 1: bad output: the bet "I bet everything I have!" is not an integer; reproduce with: /usr/bin/python3 bot.py 0 1 396`, // Chatterbox
		116187: "unknown language: Brainfuck",                                                                                                // BrainBank
	} {
		if !strings.Contains(refused[id], want) {
			t.Errorf("answer %d: %q, want it refused with %q", id, refused[id], want)
		}
	}
	if len(env.Bots) != 11 || len(refused) != 4 {
		t.Fatalf("%d bots entered, refused: %v", len(env.Bots), refused)
	}

	env.Seed, env.Games = 115303, 2 // one tournament of 2 games
	played, err := playRun(ctx, env, a)
	if err != nil {
		t.Fatal(err)
	}
	res := played.Result
	if played.Games != 2 || res.Games != 2 || len(res.Rows) != 11 || len(played.Stats) != 11 {
		t.Fatalf("played %d of %d games, %d rows, %d stats", res.Games, played.Games, len(res.Rows), len(played.Stats))
	}
	for i, r := range res.Rows {
		t.Logf("%-16s %8.0f faults %d", r.Bot, r.Score, r.Errors)
		if r.Errors != 0 || played.Stats[i].Faults() != 0 {
			t.Errorf("%s: %d faults (%+v)", r.Bot, r.Errors, played.Stats[i].First())
		}
		if r.Bot == "Lurker" && r.Score != 240*(2+1) {
			t.Errorf("Lurker: %v credits, want %d", r.Score, 240*(2+1))
		}
	}
}

// Built-in bots are the author's examples played in Go; a bot that fails is counted in its
// accounting with the input that broke it.
func TestBankHeistBuiltinsAndFaults(t *testing.T) {
	ctx := context.Background()
	env, a := adapterEnv(t, "bankheist", "games_per_tournament: 5\n")
	env.Challenge.Baselines = true
	builtins, err := a.Builtins(ctx, env)
	if err != nil || len(builtins) != 11 {
		t.Fatalf("%d builtins, %v", len(builtins), err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bot.sh"), []byte("echo 'a lot'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Bots = append(builtins, Entry{Name: "Garbage", Dir: dir, Run: []string{"bash", "bot.sh"}})
	env.Seed = 1
	played, err := playRun(ctx, env, a)
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
