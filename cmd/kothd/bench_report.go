package main

import (
	"fmt"
	"io"
	"time"

	"github.com/kothd/kothd/cron"
)

// benchResult is what kothd bench reports for one challenge (docs/benchmarks.md says what
// each number means). Times are in seconds, CPU per decision in microseconds.
type benchResult struct {
	Challenge string `json:"challenge"`
	Engine    string `json:"engine"`
	Protocol  string `json:"protocol"`
	RunID     int64  `json:"run"`
	Seed      uint64 `json:"seed"`
	Bots      int    `json:"bots"`
	// Games is every game the run played, Scored those on its board: Mafia leaves its
	// abandoned games (the longest) off the board, but they took their time and their
	// decisions, and the yardstick plays and counts them too. Rates and per-game figures
	// are per game played.
	Games       int    `json:"games"`
	Scored      int    `json:"scored_games"`
	Concurrency int    `json:"concurrency"` // the run's games in flight (fewer than asked when a bot ran out of memory)
	Sandbox     string `json:"sandbox"`
	LoadAverage string `json:"load_average"` // /proc/loadavg when the games ended

	// Seconds is the wall time of the games, after the bots were loaded when the protocol
	// loads them ahead (pyclass); LoadSeconds is that loading (0: the bots started with
	// their first calls, inside Seconds). The rates are per second of Seconds;
	// GamesPerSecWithLoad counts the loading too.
	Seconds             float64 `json:"seconds"`
	LoadSeconds         float64 `json:"load_seconds"`
	GamesPerSec         float64 `json:"games_per_s"`
	GamesPerSecWithLoad float64 `json:"games_per_s_with_loading"`
	Decisions           int64   `json:"decisions"`
	DecisionsPerSec     float64 `json:"decisions_per_s"`

	// The CPU of the whole run, loading included; LoadKothdCPU and LoadBotsCPU are the
	// loading's part (LoadBotsCPU -1: not told apart, without cgroups).
	KothdCPU     float64 `json:"kothd_cpu_s"`
	BotsCPU      float64 `json:"bots_cpu_s"`
	LoadKothdCPU float64 `json:"load_kothd_cpu_s"`
	LoadBotsCPU  float64 `json:"load_bots_cpu_s"`
	BotsSource   string  `json:"bots_cpu_source"`
	// CPU per decision, microseconds.
	KothdCPUPerDecision float64 `json:"kothd_cpu_per_decision_us"`
	BotsCPUPerDecision  float64 `json:"bots_cpu_per_decision_us"`

	PeakRSS       int64  `json:"peak_rss_bytes"`
	PeakRSSSource string `json:"peak_rss_source"`

	// Sides splits BotsCPUPerDecision by side (bench_sides.go); absent but for pyclass.
	Sides *botSides `json:"bots_cpu_sides,omitempty"`
	// Tail is how the wall time went over a lockstep run's ticks (bench_ticks.go).
	Tail *tickTail `json:"ticks,omitempty"`

	// Answers is each answer's part of the bots' CPU, largest first (bench_shares.go);
	// absent without cgroups.
	Answers []answerCPU `json:"answers_cpu,omitempty"`

	Yardstick  *yardstickReport  `json:"yardstick,omitempty"`
	Sequential *sequentialResult `json:"sequential,omitempty"`
}

// yardstickReport is the yardstick's run and the ratios against it.
type yardstickReport struct {
	yardstickResult
	GamesPerSec float64 `json:"games_per_s"`
	// Ratio is kothd's games/s over the yardstick's, both timing their games after loading
	// their bots: above 1, kothd plays faster. RatioWithLoad times both whole, loading
	// included (kothd's sandboxes and interpreters against one interpreter's imports).
	Ratio         float64 `json:"ratio"`
	RatioWithLoad float64 `json:"ratio_with_loading"`
	// CPURatio compares games per CPU-second of the games (kothd's and the bots' CPU
	// against the yardstick's): what the isolation costs, whatever the cores and the load.
	// CPURatioWithLoad counts both sides' loading too.
	CPURatio         float64 `json:"cpu_ratio"`
	CPURatioWithLoad float64 `json:"cpu_ratio_with_loading"`
}

// sequentialResult is the same challenge played with one game (or tournament) at a time,
// the way the original controllers of Mafia and Bank Heist ran.
type sequentialResult struct {
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	GamesPerSec float64 `json:"games_per_s"`
	Ratio       float64 `json:"ratio"` // the normal run's games/s over this one's
}

func newBenchResult(r *cron.Report, m playMeasure, sandbox string) *benchResult {
	res := &benchResult{
		Challenge: r.Challenge, RunID: r.RunID, Seed: r.Seed, Bots: r.Entered, Games: max(r.Played, r.Games), Scored: r.Games,
		Sandbox: sandbox, LoadAverage: loadAverage(),
		Seconds:   (m.Wall - m.Load).Seconds(),
		Decisions: m.Decisions,
		KothdCPU:  m.SelfCPU.Seconds(), BotsCPU: m.BotsCPU.Seconds(), BotsSource: m.BotsBy,
		PeakRSS: m.PeakRSS, PeakRSSSource: m.RSSSource,
	}
	if m.Loaded {
		res.LoadSeconds, res.LoadKothdCPU, res.LoadBotsCPU = m.Load.Seconds(), m.LoadSelfCPU.Seconds(), m.LoadBotsCPU.Seconds()
	}
	res.GamesPerSec = per(float64(res.Games), res.Seconds)
	res.GamesPerSecWithLoad = per(float64(res.Games), m.Wall.Seconds())
	res.DecisionsPerSec = per(float64(res.Decisions), res.Seconds)
	res.KothdCPUPerDecision = per(float64(m.SelfCPU/time.Nanosecond)/1e3, float64(res.Decisions))
	res.BotsCPUPerDecision = per(float64(m.BotsCPU/time.Nanosecond)/1e3, float64(res.Decisions))
	res.Sides = newBotSides(m)
	res.Tail = newTickTail(m.Ticks)
	return res
}

func (res *benchResult) setYardstick(y *yardstickResult) {
	rep := &yardstickReport{yardstickResult: *y, GamesPerSec: per(float64(y.Games), y.Seconds)}
	rep.Ratio = per(res.GamesPerSec, rep.GamesPerSec)
	rep.RatioWithLoad = per(res.GamesPerSecWithLoad, per(float64(y.Games), y.Seconds+y.LoadSeconds))
	games := float64(res.Games)
	whole := res.KothdCPU + res.BotsCPU
	rep.CPURatio = per(per(games, whole-res.LoadKothdCPU-max(res.LoadBotsCPU, 0)), per(float64(y.Games), y.CPU))
	rep.CPURatioWithLoad = per(per(games, whole), per(float64(y.Games), y.CPU+y.LoadCPU))
	res.Yardstick = rep
}

// per is a/b, 0 when b is 0.
func per(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// print writes the result as a block of text.
func (res *benchResult) print(w io.Writer) {
	scored := ""
	if res.Scored != res.Games {
		scored = fmt.Sprintf(", %d scored", res.Scored)
	}
	fmt.Fprintf(w, "%s (%s, %s): %d games%s (%d in flight), %d bots, seed %d, run %d, sandbox %s, load average %s\n",
		res.Challenge, res.Engine, res.Protocol, res.Games, scored, res.Concurrency, res.Bots, res.Seed, res.RunID, res.Sandbox, res.LoadAverage)
	if res.LoadSeconds > 0 {
		fmt.Fprintf(w, "  games/s          %s  (%.2f s of wall time after loading the bots;  %s with the loading)\n", rate(res.GamesPerSec), res.Seconds, rate(res.GamesPerSecWithLoad))
		bots := fmt.Sprintf("%.2f s", res.LoadBotsCPU)
		if res.LoadBotsCPU < 0 {
			bots = "not told apart (no cgroups)"
		}
		fmt.Fprintf(w, "  loading          %.2f s  (every bot's process started before the first game; CPU: kothd %.2f s, bots %s)\n", res.LoadSeconds, res.LoadKothdCPU, bots)
	} else {
		fmt.Fprintf(w, "  games/s          %s  (%.2f s of wall time, the bots' start-ups included)\n", rate(res.GamesPerSec), res.Seconds)
	}
	fmt.Fprintf(w, "  decisions/s      %s  (%d decisions, %.1f per game)\n", rate(res.DecisionsPerSec), res.Decisions, per(float64(res.Decisions), float64(res.Games)))
	fmt.Fprintf(w, "  CPU per decision kothd %.1f µs, bots %.1f µs  (CPU: kothd %.2f s, bots %.2f s; bots by %s)\n",
		res.KothdCPUPerDecision, res.BotsCPUPerDecision, res.KothdCPU, res.BotsCPU, res.BotsSource)
	fmt.Fprintf(w, "  CPU per game     kothd %s, bots %s\n", dur(per(res.KothdCPU, float64(res.Games))), dur(per(res.BotsCPU, float64(res.Games))))
	res.Sides.print(w)
	res.Tail.print(w)
	fmt.Fprintf(w, "  peak RSS         %.1f MB  (%s)\n", float64(res.PeakRSS)/(1<<20), res.PeakRSSSource)
	printShares(w, res.Answers)
	if s := res.Sequential; s != nil {
		fmt.Fprintf(w, "  sequential       %s games/s with concurrency 1 (%.2f s): ratio %s×\n", rate(s.GamesPerSec), s.Seconds, ratio(s.Ratio))
	}
	if y := res.Yardstick; y != nil {
		fmt.Fprintf(w, "  yardstick        %s games/s  (%d games in %.2f s of wall time, %.2f s of CPU, %s;  loading and exit %.2f s)\n",
			rate(y.GamesPerSec), y.Games, y.Seconds, y.CPU, y.Cores, y.LoadSeconds)
		if y.Decisions > 0 {
			fmt.Fprintf(w, "  yardstick CPU    %.1f µs per decision  (%d decisions, the bots and the controller together)\n", per(y.CPU*1e6, float64(y.Decisions)), y.Decisions)
		}
		fmt.Fprintf(w, "  ratio            %s×  kothd games/s ÷ yardstick games/s;  by CPU %s×  (games per CPU-second, kothd and bots together)\n", ratio(y.Ratio), ratio(y.CPURatio))
		fmt.Fprintf(w, "  with loading     %s×  the same with both sides' loading counted (start-ups, imports);  by CPU %s×\n", ratio(y.RatioWithLoad), ratio(y.CPURatioWithLoad))
	}
}

// rate shows a rate with the precision it deserves (Mafia plays a game in seconds).
func rate(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.3f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// ratio shows a ratio with three significant digits: 0.00613× is not 0.00×.
func ratio(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.3g", r)
}

// dur shows seconds in the unit that suits them.
func dur(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.1f µs", s*1e6)
	}
}
