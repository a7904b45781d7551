package cron

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner"
)

// The bundled Mafia snapshot through the dirfiles adapter: bots in Python 2 (the question's Randy,
// through the `python` shim), Bash, Python 3 with a helper file, and C (built by Prepare)
// are validated; the broken answers are refused with a reason; the rest play a game as
// real processes, in copies of their directories named after their game names.
func TestMafiaSnapshot(t *testing.T) {
	ctx := context.Background()
	env, a := adapterEnv(t, "mafia", "")
	needLanguage(t, env, "python2")
	patient(env.Challenge) // no faults expected
	refused := enterSnapshot(t, env, a, 151341)
	for id, want := range map[int64]string{
		151677: "exit status 127", // Mastermind: run starts a file the answer never posted
		151734: "output limit",    // Megaphone: a megabyte of votes
		152015: "no code block",   // Coming soon
		151610: "",                // Parrot writes nonsense, which is ignored, not refused
	} {
		got, ok := refused[id]
		switch {
		case want == "":
			if ok {
				t.Errorf("answer %d refused: %s", id, got)
			}
		case !strings.Contains(got, want):
			t.Errorf("answer %d: %q, want it refused with %q", id, got, want)
		}
	}
	if strings.Contains(refused[151677], "exit status 127") && !strings.Contains(refused[151677], "mastermind.py") {
		t.Errorf("Mastermind's refusal lacks the shell's message: %q", refused[151677])
	}
	var names []string
	for _, b := range env.Bots {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, ","); got != "Randy,CopTrust,Sheriff,Blabbermouth,Parrot" {
		t.Fatalf("bots entered: %s; refused: %v", got, refused)
	}

	// Seed 13 deals roles that end the game in about three days (the question's Randy
	// plays with its own unseeded randomness, so the length varies a little).
	env.Seed, env.Games = 13, 1
	played, err := playRun(ctx, env, a)
	if err != nil {
		t.Fatal(err)
	}
	res := played.Result
	if played.Games != 1 || res.Games+res.Voided != 1 && !strings.Contains(strings.Join(res.Summary, " "), "abandoned") {
		t.Fatalf("played %d of %d games: %+v", res.Games, played.Games, res)
	}
	if len(res.Rows) != 5 || len(played.Stats) != 5 || res.Voided != 0 {
		t.Fatalf("%d rows, %d stats, %d voided", len(res.Rows), len(played.Stats), res.Voided)
	}
	for i, b := range env.Bots {
		st := played.Stats[i]
		if st.Counts()[engine.OK] == 0 || st.Faults() != 0 {
			t.Errorf("%s: %v, first fault %+v", b.Name, st.Counts(), st.First())
		}
	}
	for _, r := range res.Rows {
		t.Logf("%-13s %v", r.Bot, r.Cells)
	}
	t.Logf("%q", res.Summary)
	// The tournament's copies are gone; the prepared directories are untouched.
	if left, _ := os.ReadDir(filepath.Join(env.Config.DataDir, "work")); len(left) != 0 {
		t.Errorf("play directories left behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(env.Config.DataDir, "bots", "Sheriff", "sheriff.json")); err == nil {
		t.Error("the game wrote into the prepared directory instead of a copy")
	}
}

// An answer without `run` gets one that starts its language's run command.
func TestMafiaPrepareWritesRun(t *testing.T) {
	env, a := adapterEnv(t, "mafia", "")
	dir := t.TempDir()
	src := "import os\nopen('to_server', 'w').write('say 4\\n' if os.path.exists('players') else '')\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Prepare(context.Background(), env, Submission{AnswerID: 1, Title: "Plain", Language: "python3", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	work, cleanup, err := scratch(env, "validate", entries)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if err := a.Validate(context.Background(), env, work[0]); err != nil {
		t.Fatal(err)
	}
	pool := runner.NewDirPool(runner.Unsandboxed{}, runner.DirConfig{}, []runner.DirBot{{Name: "Plain", Dir: dir}})
	defer pool.Close()
	if out, f := pool.Run(context.Background(), 0, true); f != nil || out != "" {
		t.Errorf("generated run: %q, %v", out, f)
	}
	_ = pool.Setup(0, []string{"Plain"})
	if out, f := pool.Run(context.Background(), 0, true); f != nil || out != "say 4\n" {
		t.Errorf("generated run: %q, %v", out, f)
	}
	if _, err := a.Prepare(context.Background(), env, Submission{AnswerID: 2, Title: "X", Language: "cobol", Dir: dir}); err == nil {
		t.Error("an unknown language was accepted")
	}
}
