package main

import (
	"fmt"
	"io"
	"time"
)

// botSides splits the bots' CPU per decision of a pyclass challenge into its sides, from
// what the harness processes told at their end (pyclass.HarnessTimes) and what the
// sandboxes' cgroups counted. Microseconds per decision of the run; absent when no harness
// reported (other protocols) or no cgroup counted.
type botSides struct {
	Processes int `json:"processes_reported"`
	// Start is the harnesses' CPU until they were ready: the interpreter's start, the
	// harness's and the game module's imports, the answer's own import-time code.
	Start float64 `json:"harness_start_us"`
	// Harness is their CPU after that less the time inside the game module's calls: the
	// batch loop's decoding, encoding, timers, the pipe's reads and writes.
	Harness float64 `json:"harness_per_call_us"`
	// Module is the time inside the game module's calls less the bot's own code (when the
	// module measures it, BotTimed; else the two together).
	Module float64 `json:"game_module_us"`
	// Bot is the time inside the bot's own methods; -1 when the game module does not
	// measure it.
	Bot float64 `json:"bot_code_us"`
	// Rest is the bots' CPU (cgroups) less the harness processes' own: bwrap, and the
	// processes that did not report (killed, restarted).
	Rest float64 `json:"sandbox_and_unreported_us"`
	// Loop is the harnesses' batch loop: "C (file)" or "Python (why)" (pyclass.FastHarness).
	Loop string `json:"harness_loop,omitempty"`
}

func newBotSides(m playMeasure) *botSides {
	h := m.Harness
	if h.Processes == 0 || m.Decisions == 0 || len(m.ByAnswer) == 0 {
		return nil
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 / float64(m.Decisions) }
	s := &botSides{
		Processes: h.Processes,
		Start:     us(h.Ready),
		Harness:   us(h.CPU - h.Ready - h.InCalls),
		Module:    us(h.InCalls),
		Bot:       -1,
		Rest:      us(m.BotsCPU - h.CPU),
	}
	if h.BotTimed == h.Processes {
		s.Bot, s.Module = us(h.Bot), us(h.InCalls-h.Bot)
	}
	// The time in calls and in the bot's code is wall time, read by the harness around
	// them; the rest is CPU time. A run so short that a few descheduled calls weigh in can
	// make a difference of the two negative: it is then below what can be told apart, 0.
	for _, v := range []*float64{&s.Harness, &s.Module, &s.Rest} {
		*v = max(*v, 0)
	}
	return s
}

// print writes the split as one line of the bench's block.
func (s *botSides) print(w io.Writer) {
	if s == nil {
		return
	}
	code := fmt.Sprintf("bot code %.1f µs, game module %.1f µs", s.Bot, s.Module)
	if s.Bot < 0 {
		code = fmt.Sprintf("game module and bot code %.1f µs", s.Module)
	}
	fmt.Fprintf(w, "  bots' CPU split  %s, harness per call %.1f µs, harness start-up %.1f µs, sandbox and unreported %.1f µs  (per decision; %d harnesses reported)\n",
		code, s.Harness, s.Start, s.Rest, s.Processes)
	if s.Loop != "" {
		fmt.Fprintf(w, "  harness loop     %s\n", s.Loop)
	}
}
