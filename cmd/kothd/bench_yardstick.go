package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol/dirfiles"
	"github.com/kothd/kothd/runner/sandbox"
	"golang.org/x/sys/unix"
)

// The yardsticks: for each game that has one, the original controller's way of playing it,
// written anew from the rules: a Python-class game's bots all in one Python process, called
// directly; a program game's bots launched one decision at a time, unsandboxed, from one
// Python loop. Each game's is in its folder (engine.Game.Yardstick, engine/<game>/
// yardstick.py); what they share is yardstick/yardcommon.py. See docs/benchmarks.md.
//
//go:embed yardstick/yardcommon.py
var yardcommon []byte

// yardstickResult is one yardstick run: the same bots and games as kothd's run.
type yardstickResult struct {
	Games   int     `json:"games"`
	Seconds float64 `json:"seconds"` // wall time of the games
	CPU     float64 `json:"cpu"`     // CPU time of the games
	Leader  []any   `json:"leader"`  // the class with the best share of wins, and that share
	// Decisions counts the bot processes a program game's yardstick launched (0: not
	// counted, as in the Python-class games, whose calls are plain method calls).
	Decisions int64  `json:"decisions,omitempty"`
	Cores     string `json:"cores"` // how it was pinned
	// LoadSeconds and LoadCPU are the rest of the yardstick's process, measured from
	// outside: the interpreter's start, loading the bots, the report and the exit.
	LoadSeconds float64 `json:"load_and_exit_seconds"`
	LoadCPU     float64 `json:"load_and_exit_cpu"`
}

// hasYardstick says whether the game has a yardstick.
func hasYardstick(g *engine.Game) bool { return len(g.Yardstick) > 0 }

// runYardstick plays games games of g with bots (the run's, as the store recorded them) in
// the game's yardstick, on one core when taskset can pin it there (the originals played
// one game, and launched one bot, at a time), or, for a yardstick that takes workers
// (forty's: its original ran a pool of worker processes), in workers processes pinned to
// as many cores as the machine has up to workers.
func runYardstick(ctx context.Context, python string, g *engine.Game, bots []engine.Bot, games int, seed uint64, options any, workers int) (*yardstickResult, error) {
	dir, err := os.MkdirTemp("", "kothd-yardstick-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for name, data := range map[string][]byte{"yardcommon.py": yardcommon, "yardstick.py": g.Yardstick} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	type bot struct {
		Name     string   `json:"name"`
		Dir      string   `json:"dir"`
		Baseline bool     `json:"baseline"`
		Run      []string `json:"run,omitempty"` // the command of a program bot, run in Dir
	}
	in := struct {
		Module  string `json:"module"`
		Games   int    `json:"games"`
		Seed    uint64 `json:"seed"`
		Workers int    `json:"workers"`
		Options any    `json:"options"`
		Bots    []bot  `json:"bots"`
	}{Games: games, Seed: seed, Workers: 1, Options: options}
	if g.YardstickWorkers {
		in.Workers = max(workers, 1)
	}
	if g.Harness != nil {
		in.Module = g.Harness.Module
	}
	for _, b := range bots {
		in.Bots = append(in.Bots, bot{Name: b.Name, Dir: b.Dir, Baseline: b.Baseline, Run: b.Run})
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	argv := []string{python, "-B", filepath.Join(dir, "yardstick.py")}
	allowed := allowedCPUs()
	n := min(in.Workers, len(allowed))
	cpus := strings.Join(allowed[:n], ",")
	cores := fmt.Sprintf("one core (taskset -c %s)", cpus)
	if in.Workers > 1 {
		cores = fmt.Sprintf("%d worker processes on %d cores (taskset -c %s)", in.Workers, n, cpus)
	}
	if ts, err := exec.LookPath("taskset"); err == nil {
		argv = append([]string{ts, "-c", cpus}, argv...)
	} else if in.Workers > 1 {
		cores = fmt.Sprintf("%d worker processes, not pinned: taskset not found", in.Workers)
	} else {
		cores = "not pinned: taskset not found"
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = yardstickEnv(dir)
	// The yardstick's workers and the bots it launches hold its output pipes: a stopped
	// bench kills the whole group, and once the yardstick has exited nothing it left may
	// keep kothd waiting.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	cmd.Stdin = bytes.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	began := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("yardstick %s: %w: %s", g.Name, err, tail(errb.String(), 2000))
	}
	whole := time.Since(began).Seconds()
	var res yardstickResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("yardstick %s: unreadable report %q: %w", g.Name, tail(out.String(), 500), err)
	}
	res.Cores = cores
	res.LoadSeconds = max(whole-res.Seconds, 0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// wait4's figures: the process and the bot processes it waited for.
		cpu := float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		res.LoadCPU = max(cpu-res.CPU, 0)
	}
	return &res, nil
}

// allowedCPUs are the CPUs kothd may run on (its affinity: a cpuset need not start at 0),
// in order, as taskset names them; CPU 0 alone when the affinity cannot be read.
func allowedCPUs() []string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return []string{"0"}
	}
	var cpus []string
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, strconv.Itoa(c))
		}
	}
	if len(cpus) == 0 {
		return []string{"0"}
	}
	return cpus
}

// yardstickEnv is the environment the yardstick and the bots it launches run in: the one
// kothd's sandboxes give bots (sandbox.BaseEnv, the interpreter shims of a bot's directory
// first on PATH). Not the host's: a PATH with pyenv's shims first starts two bash
// processes before every `python` a bot's run script names, which kothd's bots never pay,
// and the ratio would time the wrapper instead of the controller.
func yardstickEnv(home string) []string {
	// The later PATH wins (exec keeps the last value of a repeated key), as in the sandbox.
	return append(sandbox.BaseEnv(home), "PATH="+dirfiles.ShimPath())
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
