package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
)

func TestHostilePyclassBots(t *testing.T) {
	sb := sandbox.NeedBwrap(t)
	w := sandbox.NewHostileWorld(t)
	src, err := os.ReadFile("testdata/hostile/forty_bots.py")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		class string
		want  engine.Outcome
		died  bool // the process is gone after the call
	}{
		{"Honest", engine.OK, false},
		{"EnvThief", engine.OK, false},
		{"NetCaller", engine.Crash, false},
		{"Snoop", engine.Crash, false},
		{"Vandal", engine.Crash, false},
		{"ForkBomb", engine.Timeout, true},
		{"Hog", engine.MemoryLimit, false},
		{"Spinner", engine.Timeout, false},
		{"Sleeper", engine.Timeout, false},
		{"Flood", engine.OutputLimit, true},
		{"Chatter", engine.Timeout, false},
		{"StdoutCloser", engine.Timeout, true},
		{"Orphaner", engine.OK, false},
		{"Parricide", engine.Crash, false},
	}
	base, _ := strconv.ParseUint(w.Marker, 10, 64)
	var bots []engine.Bot
	for i, c := range cases {
		name := c.class
		if c.class == "Honest" {
			name = "victim"
		}
		dir := w.BotDir(t, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := installTestHarness(dir); err != nil {
			t.Fatal(err)
		}
		// The seed is on the harness's command line: it carries the marker.
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: c.class, Seed: base*100 + uint64(i)}, Dir: dir})
	}
	w.Files[filepath.Join(w.Data, "bots", "victim", "bot.py")] = string(src)
	cfg := pyclass.PyConfig{Harness: "forty", Python: "/usr/bin/python3", CallTimeout: 500 * time.Millisecond,
		StartTimeout: 60 * time.Second, MaxRestarts: 3,
		Limits: sandbox.Limits{MemoryMB: 256, Procs: 16, OpenFiles: 64, OutputBytes: 1 << 20, FileSizeMB: 8}}
	pool := pyclass.NewPyPool(sb, cfg, bots)
	defer pool.Close()

	turn := func(bot, game int) []engine.Call {
		return []engine.Call{
			{Bot: bot, Game: game, Method: "new", Args: map[string]any{"seat": 0}},
			{Bot: bot, Game: game, Method: "start", Args: map[string]any{"throws": []int{3}, "scores": []int{0, 0, 0, 0}, "last": false}},
		}
	}
	var calls []engine.Call
	for i := range cases {
		calls = append(calls, turn(i, 1)...)
	}
	replies := pool.Exchange(context.Background(), calls)
	for i, c := range cases {
		newR, start := replies[2*i], replies[2*i+1]
		if c.class != "StdoutCloser" && c.class != "ForkBomb" && c.class != "Flood" && newR.Fault != nil {
			t.Errorf("%s: new game: %v", c.class, newR.Fault)
		}
		got := engine.OK
		if start.Fault != nil {
			got = start.Fault.Outcome
			if found := w.Leaks(start.Fault.Detail); len(found) > 0 {
				t.Errorf("%s: fault detail holds secrets %v", c.class, found)
			}
		}
		if got != c.want {
			t.Errorf("%s: outcome %q, want %q (%v)", c.class, got, c.want, start.Fault)
			continue
		}
		// The fork bomb's call ends either way, both containment: its children spin the
		// sandbox's CPU past its limit (the whole sandbox killed), or, on a host too busy
		// to run them, the harness's own CPU timer stops the call first (the process lives
		// on, its strays killed after the reply).
		if start.Fault != nil && start.Fault.ProcessDied != c.died && c.class != "ForkBomb" {
			t.Errorf("%s: process died = %v, want %v (%v)", c.class, start.Fault.ProcessDied, c.died, start.Fault)
		}
		if c.want == engine.OK && string(start.Result) != "true" {
			t.Errorf("%s: answered %s, want true", c.class, start.Result)
		}
		t.Logf("%-12s %-12s %.120s", c.class, got, sandbox.Detail(start.Fault))
	}

	// The attacks changed nothing for the others: the control plays on, and bots whose
	// process survived its own timeout still answer.
	replies = pool.Exchange(context.Background(), append(turn(0, 2), engine.Call{Bot: 7, Game: 2, Method: "new", Args: map[string]any{"seat": 1}}))
	for i, r := range replies {
		if r.Fault != nil {
			t.Errorf("second round, call %d: %v", i, r.Fault)
		}
	}
	if st := pool.Stats(0).Counts(); st[engine.OK] != 4 || len(st) != 1 {
		t.Errorf("control's accounting: %v, want 4 OK", st)
	}
	for i, c := range cases {
		// A process that died takes the whole batch (new and start) with it.
		if c.want != engine.OK && pool.Stats(i).Counts()[c.want] < 1 {
			t.Errorf("%s: accounting %v lacks %q", c.class, pool.Stats(i).Counts(), c.want)
		}
	}
	pool.Close()
	w.CheckAftermath(t)
}

// installTestHarness installs the pyclass harness with the forty game's module, which
// these tests play (PyConfig.Harness "forty").
func installTestHarness(dir string) error {
	h := forty.Descriptor.Harness
	return pyclass.InstallHarness(dir, h.Module, h.Source)
}
