package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/bankheist"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// status answers a participant's "why is my bot not in?" and a host's "what happened?" from
// the store: a failed last run next to the board's run, a failed publication with its
// reason, entered and refused answers with reasons, pending ones, and the next run.
func TestStatusTellsWhatHappened(t *testing.T) {
	cfgPath := testConfig(t, "timezone: UTC\ngithub: {owner: o, repo: r, path: lb}\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 3, 1, 4, 0, 0, 0, time.UTC)
	st.SetClock(func() time.Time { return clock })
	subs := []scraper.Submission{
		{AnswerID: 11, Author: "Ann", Title: "GoodBot", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class GoodBot(Bot): pass"}}},
		{AnswerID: 12, Author: "Bo", Title: "Broken", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class Broken(Bot): x"}}},
		{AnswerID: 13, Author: "Cy", Title: "Prose", Reject: "no code block in the answer"},
		{AnswerID: 14, Author: "Di", Title: "Late", Language: "python3", Files: []scraper.File{{Name: "bot.py", Content: "class Late(Bot): pass"}}},
	}
	if _, err := st.RecordAnswers(ctx, "forty", 177765, subs); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		id                   int64
		name, status, reason string
	}{
		{11, "GoodBot", "ok", ""},
		{12, "Broken", "failed validation", "crash: NameError: name 'x' is not defined\nin: make_throw([0, 0], False)"},
		{13, "Prose", "rejected", "no code block in the answer"},
	} {
		if err := st.SetBotStatus(ctx, "forty", b.id, b.name, b.status, b.reason); err != nil {
			t.Fatal(err)
		}
	}
	good, err := st.StartRun(ctx, "forty", 42, 1024, "set", 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, good, &engine.Result{Games: 100}, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPublication(ctx, "forty", good, "/somewhere/else/leaderboards", "h0", ""); err != nil {
		t.Fatal(err) // a target no longer configured
	}
	if err := st.RecordPublication(ctx, "forty", good, cfg.OutputDir, "h1", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPublication(ctx, "forty", good, "github:o/r@main/lb", "h1", "abc123"); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(24 * time.Hour)
	bad, err := st.StartRun(ctx, "forty", 43, 1024, "set2", 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FailRun(ctx, bad, "harness of GoodBot: out of memory"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvent(ctx, "forty", store.PublishFailedEvent, 0, "github:o/r@main/lb: 401 Bad credentials: check GITHUB_TOKEN"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, out, errOut := kothd(t, "status", "--config", cfgPath, "--challenge", "forty")
	if code != 2 { // the last run failed
		t.Fatalf("exit %d, want 2 (failing): %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"forty:  (question 177765, engine forty)",
		"last run:     run 2 started 2026-03-02 04:00 UTC, failed: harness of GoodBot: out of memory; seed 43",
		"board from:   run 1 started 2026-03-01 04:00 UTC, done; seed 42",
		`next run:     `,
		"published:    " + cfg.OutputDir + ": ok at 2026-03-01 04:00 UTC, run 1",
		"no kothd holds " + cfg.DataDir,
		"health:       failing: run 2 failed: harness of GoodBot: out of memory; publication to github:o/r@main/lb failing since",
		"health: failing\n",
		"published:    github:o/r@main/lb: FAILED at 2026-03-02 04:00 UTC: 401 Bad credentials: check GITHUB_TOKEN (last success: 2026-03-01 04:00 UTC)",
		"answers:      4 active, 0 deleted; 1 bots entered, 2 not entered, 1 answers not prepared yet",
		"entered      GoodBot                  answer 11 by Ann, python3",
		"NOT entered  Broken                   answer 12 by Bo: failed validation: crash: NameError: name 'x' is not defined …",
		"NOT entered  Prose                    answer 13 by Cy: rejected: no code block in the answer",
		"pending      Late                     answer 14 by Di: fetched, not built yet",
		"publish-failed github:o/r@main/lb: 401 Bad credentials",
		"new      answer 12: Broken by Bo",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ruins") {
		t.Errorf("--challenge forty printed another challenge:\n%s", out)
	}
	if strings.Contains(out, "/somewhere/else") {
		t.Errorf("status lists a target no longer configured:\n%s", out)
	}
	code, out, errOut = kothd(t, "status", "--config", cfgPath, "--json")
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 2 {
		t.Fatalf("status --json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	if rep.Health != "failing" || len(rep.Challenges) != 2 || rep.Challenges[0].LastRun.State != "failed" || rep.Challenges[1].Health != "healthy" ||
		len(rep.Challenges[0].Publications) != 2 || rep.Challenges[0].Publications[1].OK || rep.Challenges[0].Answers.Pending != 1 {
		t.Errorf("status --json:\n%s", out)
	}
}

// status while a kothd plays: the run is "playing now" by the pid holding the data
// directory, with its progress (it used to be "interrupted (the next cycle plays it
// again)"), healthy; after SIGTERM it is interrupted, and status says degraded (exit 1).
func TestStatusSeesTheLiveRun(t *testing.T) {
	cfg := hostDir(t, "")
	p := startKothd(t, "once", "--config", cfg, "--snapshot", hostSnapshot(t), "--challenge", "forty", "--games", "200000")
	p.waitFor(t, "forty: games ", 3*time.Minute) // the first progress line: the live file is written with it
	code, out, errs := kothd(t, "status", "--config", cfg, "--challenge", "forty")
	pid := strconv.Itoa(p.cmd.Process.Pid)
	if code != 0 || !strings.Contains(out, "kothd pid "+pid+" holds") || !strings.Contains(out, "playing now (") || strings.Contains(out, "interrupted") {
		t.Errorf("status during the run: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = kothd(t, "status", "--config", cfg, "--challenge", "forty", "--json")
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("status --json during the run: exit %d %v\n%s", code, err, out)
	}
	if c := rep.Challenges[0]; strconv.Itoa(rep.PID) != pid || c.LastRun.State != "playing" || c.Live == nil || c.Live.Done <= 0 || c.Live.Total != 200000 {
		t.Errorf("status --json during the run:\n%s", out)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t, 30*time.Second)
	code, out, _ = kothd(t, "status", "--config", cfg, "--challenge", "forty")
	if code != 1 || !strings.Contains(out, "interrupted (the next cycle plays it again") || !strings.Contains(out, "health: degraded") {
		t.Errorf("status after SIGTERM: exit %d, want 1\n%s", code, out)
	}
}

// kothd backup FILE writes a copy of the host's database that opens, without the lock (a
// daemon may hold it).
func TestBackupCommand(t *testing.T) {
	cfgPath := testConfig(t, "")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	lock, err := store.LockDir(cfg.DataDir) // as a running daemon holds it
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	out := filepath.Join(t.TempDir(), "copy.db")
	if code, o, e := kothd(t, "backup", out, "--config", cfgPath); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	cp, err := store.OpenReadOnly(context.Background(), out)
	if err != nil {
		t.Fatalf("the backup does not open: %v", err)
	}
	cp.Close()
}

// A Bank Heist run asks for no number of games (it plays whole tournaments, each of a
// length drawn from the seed): status counted its games against the row's 0 and said
// "1071 of 0 games". It counts them as the engine plans them.
func TestStatusCountsTournamentGames(t *testing.T) {
	cfgPath := testConfig(t, "  - {name: bankheist, question_id: 115303, engine: bankheist}\n")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordAnswers(ctx, "bankheist", 115303, nil); err != nil {
		t.Fatal(err)
	}
	const seed = 115303
	planned := bankheist.PlannedGames(bankheist.Config{Seed: seed, Tournaments: 1, GamesPerTournament: bankheist.DefaultGamesPerTournament})
	id, err := st.StartRun(ctx, "bankheist", seed, 2, "set", 0) // as a run of the shipped config records it
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, &engine.Result{Games: planned}, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, out, errOut := kothd(t, "status", "--config", cfgPath, "--challenge", "bankheist")
	if want := fmt.Sprintf("seed %d, %d of %d games", seed, planned, planned); !strings.Contains(out, want) {
		t.Errorf("status lacks %q:\n%s%s", want, out, errOut)
	}
	_, out, _ = kothd(t, "status", "--config", cfgPath, "--challenge", "bankheist", "--json")
	var rep statusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Challenges) != 1 || rep.Challenges[0].LastRun == nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if r := rep.Challenges[0].LastRun; r.GamesPlanned != planned || r.GamesPlayed != planned {
		t.Errorf("status --json: games %d of %d, want %d of %d", r.GamesPlayed, r.GamesPlanned, planned, planned)
	}
}
