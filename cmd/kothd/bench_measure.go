package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// playMeasure is what kothd bench measures over the games of one run: from the moment the
// engine starts until the bots' processes are gone (cron.Cycle.Meter), so that fetching,
// building and validating the bots is not counted.
type playMeasure struct {
	Wall time.Duration // the whole run: loading the bots (Load) and the games
	// Load is the part of Wall spent loading the bots before the first game, when the
	// protocol loads them ahead (engine.Loader; Loaded says so), with kothd's and the
	// bots' CPU for it. The CPU figures below are the whole run's, loading included.
	// LoadBotsCPU is negative when the bots' side could not be told apart (no cgroups:
	// the bots' CPU is then RUSAGE_CHILDREN, read once at the end).
	Loaded                   bool
	Load                     time.Duration
	LoadSelfCPU, LoadBotsCPU time.Duration
	SelfCPU                  time.Duration // kothd's own user+sys CPU (RUSAGE_SELF)
	BotsCPU                  time.Duration // the bots' processes and their sandboxes
	BotsBy                   string        // how BotsCPU was measured
	Decisions                int64         // bot calls counted by the runs' fault accounting, every outcome
	// ByAnswer is the bots' CPU per answer (sandbox.AnswerKey), as the sandboxes' cgroups
	// counted it; empty without cgroups. BotDecisions are the decisions of each bot of the
	// run, in the run's order.
	ByAnswer     map[string]time.Duration
	BotDecisions []int64
	PeakRSS      int64 // bytes: kothd's peak resident set during the games
	// Harness is what the pyclass harnesses that ended during the games told of their time
	// (pyclass.HarnessTimes); zero for other protocols.
	Harness   pyclass.HarnessTimes
	RSSSource string // how PeakRSS was measured
	// Ticks are the lockstep runs' exchanges over the games (engine.TickLog); none for
	// engines without ticks.
	Ticks []engine.Tick
}

// How BotsCPU is measured, for the output. Each sandbox's cgroup counts the CPU of every
// process in it, however it ended; the runner totals them as it removes the cgroups, once
// the bots are done. Without cgroups (sandbox none, cgroups off) the kernel's
// RUSAGE_CHILDREN is the fallback: it counts only descendants that were waited for, and a
// bot killed together with bwrap's init inside its PID namespace is never waited for by
// anyone who counts, so it may fall short.
const (
	botsByCgroups = "the sandboxes' cgroups"
	botsByRusage  = "RUSAGE_CHILDREN (reaped processes only; no cgroups)"
)

// startMeasure starts measuring; loaded marks the end of the bots' loading (given the
// CPU the protocol counted for it in running sandboxes), stop ends the measure, given the
// bots' accounting of the run.
func startMeasure() (loaded func(botsCPU time.Duration), stop func(stats []*protocol.Stats) playMeasure) {
	self0, child0 := cpuOf(syscall.RUSAGE_SELF), cpuOf(syscall.RUSAGE_CHILDREN)
	cg0, n0 := sandbox.SandboxesCPU()
	by0 := sandbox.SandboxesCPUByAnswer()
	h0 := pyclass.HarnessTotals()
	ticks := engine.RecordTicks()
	// Writing 5 to clear_refs resets the process's peak RSS (VmHWM) to its current RSS
	// (Linux ≥ 4.0): the peak then belongs to this run, not to an earlier one.
	resetOK := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	start := time.Now()
	var load playMeasure
	loaded = func(botsCPU time.Duration) {
		load.Loaded, load.Load = true, time.Since(start)
		load.LoadSelfCPU = cpuOf(syscall.RUSAGE_SELF) - self0
		cg, _ := sandbox.SandboxesCPU() // the sandboxes of failed starts, already released
		load.LoadBotsCPU = botsCPU + cg - cg0
	}
	return loaded, func(stats []*protocol.Stats) playMeasure {
		m := playMeasure{
			Wall:    time.Since(start),
			SelfCPU: cpuOf(syscall.RUSAGE_SELF) - self0,
			BotsCPU: cpuOf(syscall.RUSAGE_CHILDREN) - child0,
			BotsBy:  botsByRusage,
			Loaded:  load.Loaded, Load: load.Load, LoadSelfCPU: load.LoadSelfCPU, LoadBotsCPU: -1,
		}
		if cg, n := sandbox.SandboxesCPU(); n > n0 {
			m.BotsCPU, m.BotsBy = cg-cg0, botsByCgroups
			m.LoadBotsCPU = load.LoadBotsCPU
			m.ByAnswer = map[string]time.Duration{}
			for k, d := range sandbox.SandboxesCPUByAnswer() {
				if d -= by0[k]; d > 0 {
					m.ByAnswer[k] = d
				}
			}
		}
		m.BotDecisions = make([]int64, len(stats))
		for i, s := range stats {
			if s == nil {
				continue
			}
			for _, n := range s.Counts() {
				m.BotDecisions[i] += int64(n)
			}
			m.BotDecisions[i] += int64(s.HostFaults())
			m.Decisions += m.BotDecisions[i]
		}
		m.PeakRSS, m.RSSSource = peakRSS(resetOK)
		m.Harness = pyclass.HarnessTotals().Sub(h0)
		m.Ticks = ticks.Stop()
		return m
	}
}

// cpuOf is the user+sys CPU time getrusage reports for who.
func cpuOf(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is kothd's peak resident set size: VmHWM, reset at the start of the run when
// reset says so, else since the process started; rusage's maxrss when /proc is missing.
func peakRSS(reset bool) (int64, string) {
	if kb, ok := procStatusKB("VmHWM"); ok {
		if reset {
			return kb << 10, "VmHWM, reset when the games started"
		}
		return kb << 10, "VmHWM since kothd started (clear_refs not writable)"
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10, "rusage maxrss since kothd started"
}

// procStatusKB reads a "Key:   123 kB" line of /proc/self/status.
func procStatusKB(key string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		return v, err == nil
	}
	return 0, false
}

// loadAverage is /proc/loadavg's first three fields, for the output: a bench on a busy
// machine says so.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
