package referee_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron/crontest"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/referee"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/argv"
	"github.com/kothd/kothd/runner/protocol/stdio"
)

// hostileRun connects stdio bots (name → bot.py, given the host's data directory) and the referee in refDir
// with options (YAML after the referee's; with a comment "# argv", bots of the argv protocol) through the host's real parts: scratch copies,
// the bwrap sandbox, the stdio protocol and the host's referee starter.
func hostileRun(t testing.TB, refDir string, bots func(dataDir string) map[string]string, options string) (engine.Run, *protocol.Env, []*protocol.Stats) {
	t.Helper()
	dir := t.TempDir()
	cfg := crontest.Config(t, dir)
	sources := bots(cfg.DataDir)
	crontest.NeedLanguage(t, cfg, "python3")
	ch := &config.Challenge{Name: "hostile", Engine: "referee", Limits: config.Limits{
		CallTimeout: config.Duration(20 * time.Second), StartTimeout: config.Duration(20 * time.Second),
		MemoryMB: 512, Procs: 16, OutputKB: 64}}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte("referee: {dir: "+refDir+", language: python3, file: referee.py}\n"+options), &node); err != nil {
		t.Fatal(err)
	}
	opts, err := referee.Descriptor.DecodeOptions(node.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	var prepared []engine.Bot
	for _, name := range []string{"A", "B"} {
		d := filepath.Join(dir, "bots", name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "bot.py"), []byte(sources[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, engine.Bot{Entrant: engine.Entrant{Name: name}, AnswerID: int64(len(prepared) + 1), Dir: d,
			Run: cfg.Languages["python3"].Run})
	}
	env := &protocol.Env{Challenge: ch, Config: cfg, Game: referee.Descriptor, Options: opts, Sandbox: crontest.Sandbox(t)}
	work, cleanup, err := protocol.Scratch(env, "run", prepared, !strings.Contains(options, "# argv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	env.Bots = work
	r := engine.Run{Bots: engine.Entrants(work), Seed: 11, Games: 7, Concurrency: 2, Options: opts}
	var proto protocol.Protocol = stdio.Protocol{}
	if strings.Contains(options, "# argv") {
		proto, env.Game = argv.Protocol{}, referee.ArgvDescriptor
	}
	stats, closeFn, err := proto.Open(env, &r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	r.Referee = protocol.Referees(env)
	return r, env, stats
}

// hostileDir is the hostile referee's directory, relative to the repository's config.
const hostileDir = "engine/referee/testdata/hostile"

const answerR = "import sys\nfor line in sys.stdin:\n    print('R', flush=True)\n"

// A referee that hangs, crashes mid-game, prints garbage, asks for a seat that does not
// exist, reports a result for the wrong seats or floods its output voids that game, the
// host's fault, with its reason; the game it plays properly counts, and no bot is blamed
// for any of it. A run whose every game is voided fails as the host's fault.
func TestHostileReferee(t *testing.T) {
	ctx := context.Background()
	r, _, stats := hostileRun(t, hostileDir, func(string) map[string]string { return map[string]string{"A": answerR, "B": answerR} }, "timeout: 2s\n")
	res, err := referee.Descriptor.Play(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 1 || res.Voided != 6 {
		t.Errorf("%d games scored and %d voided, want 1 and 6; summary %q", res.Games, res.Voided, res.Summary)
	}
	if len(res.Summary) != 4 || !strings.Contains(res.Summary[0], "Game 1 voided, the host's referee's fault: ") || res.Summary[3] != "6 games voided in all." {
		t.Errorf("the board does not say which games were voided and why: %q", res.Summary)
	}
	for i, st := range stats {
		if st.Faults() != 0 {
			t.Errorf("bot %d was blamed for the referee's faults: %v (first %+v)", i, st.Counts(), st.First())
		}
	}
	for _, row := range res.Rows {
		if row.Errors != 0 || row.Played != 1 {
			t.Errorf("row %+v", row)
		}
	}
	// Each game again, alone: its reason, naming the offending line.
	want := map[int]string{
		1: "the referee wrote no line within 2s",
		2: "RuntimeError: the referee's own bug",
		3: `line 2 "hello there": not a JSON request`,
		4: "seat 7 does not exist (the game has seats 0 to 1)",
		5: "result has 3 values for 2 seats",
		6: "the referee wrote a line longer than its output limit",
	}
	for g := 0; g < 7; g++ {
		err := referee.Descriptor.Replay(ctx, r, g, func(string) {})
		var f *engine.Fault
		switch {
		case g == 0 && err != nil:
			t.Errorf("game 0: %v", err)
		case g == 0:
		case !errors.As(err, &f) || f.Outcome != engine.HostFault || !strings.Contains(f.Detail, want[g]):
			t.Errorf("game %d: %v, want a host fault saying %q", g, err, want[g])
		}
	}

	r.Options.(*referee.Options).Settings = map[string]any{"only": "chatter"}
	err = referee.Descriptor.Replay(ctx, r, 0, func(string) {})
	if f := (*engine.Fault)(nil); !errors.As(err, &f) || !strings.Contains(f.Detail, "more than 1000000 lines in one game") {
		t.Errorf("a referee that logs for ever: %v", err)
	}

	r.Options.(*referee.Options).Settings = map[string]any{"only": 3}
	_, err = referee.Descriptor.Play(ctx, r)
	var f *engine.Fault
	if !errors.As(err, &f) || f.Outcome != engine.HostFault || !strings.Contains(err.Error(), "every game was voided") {
		t.Errorf("a run of voided games: %v, want the host's fault", err)
	}
}

// The referee and the bots are sandboxed from each other: a bot sees neither the
// referee's directory nor its process, the referee sees neither the bots' directories nor
// the host's environment; they meet only in the lines kothd relays.
func TestRefereeAndBotsApart(t *testing.T) {
	t.Setenv("KOTHD_TEST_SECRET", "hunter2")
	spy := `import os, sys
paths = %q
for line in sys.stdin:
    seen = []
    for p in paths:
        try:
            seen.append("%%s: %%s" %% (p, os.listdir(p)))
        except OSError:
            pass
    for pid in os.listdir("/proc"):
        try:
            cmd = open("/proc/%%s/cmdline" %% pid).read()
        except OSError:
            continue
        if "referee" in cmd:
            seen.append("process " + cmd)
    print("; ".join(seen) or "blind", flush=True)
`
	r, env, _ := hostileRun(t, hostileDir, func(data string) map[string]string {
		// The host's work directory holds the referee's copy and the bots' scratch copies.
		src := fmt.Sprintf(spy, []string{filepath.Join(data, "work"), data})
		return map[string]string{"A": src, "B": src}
	}, "")
	paths := []any{env.Bots[0].Dir, env.Bots[1].Dir, filepath.Dir(env.Bots[0].Dir)}
	r.Options.(*referee.Options).Settings = map[string]any{"only": "spy", "paths": paths}
	var trace strings.Builder
	if err := referee.Descriptor.Replay(context.Background(), r, 0, func(s string) { trace.WriteString(s + "\n") }); err != nil {
		t.Fatal(err)
	}
	if strings.Count(trace.String(), "log: bot: blind") != 2 || !strings.Contains(trace.String(), "log: referee: blind") {
		t.Errorf("the referee and the bots saw each other (or the host's environment):\n%s", trace.String())
	}
}

// referee-argv: the same referee plays bots launched once per decision, the message's words
// their arguments; a bot whose output the referee's pattern refuses has its bad output
// counted, as any fault of the argv protocol.
func TestArgvBots(t *testing.T) {
	bots := map[string]string{
		// Answers what beats the opponent's last move: move ROUND LAST.
		"A": "import sys\nprint({'R': 'P', 'P': 'S', 'S': 'R', '-': 'R'}[sys.argv[3]])\n",
		"B": "print('rock')\n",
	}
	r, _, stats := hostileRun(t, "engine/referee/examples/rps", func(string) map[string]string { return bots }, "# argv\nsettings: {rounds: 4}\n")
	r.Games = 2
	res, err := referee.ArgvDescriptor.Play(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Games != 2 || res.Rows[0].Bot != "A" || res.Rows[0].Score != 4 || res.Rows[1].Errors != 8 {
		t.Errorf("table %+v", res.Rows)
	}
	if c := stats[1].Counts(); c[engine.BadOutput] != 8 {
		t.Errorf("B's accounting %v", c)
	}
	if f := stats[1].First(); f == nil || !strings.Contains(f.Detail, `reply "rock" does not match [RPS]`) {
		t.Errorf("B's first fault %+v", f)
	}
}
