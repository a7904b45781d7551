package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/protocol/pyclass"
)

// The split of the bots' CPU: start-up, the harness's per-call work (its CPU after ready
// less the time in calls), the game module (time in calls less bot code), bot code, and
// the rest of the cgroups' count (bwrap, processes that did not report); absent without
// reports.
func TestBotSides(t *testing.T) {
	m := playMeasure{
		BotsCPU: 10 * time.Second, Decisions: 1_000_000,
		ByAnswer: map[string]time.Duration{"a1": 10 * time.Second},
		Harness: pyclass.HarnessTimes{Processes: 2, BotTimed: 2, Ready: time.Second, CPU: 8 * time.Second,
			InCalls: 4 * time.Second, Bot: 3 * time.Second, Calls: 1_000_000},
	}
	s := newBotSides(m)
	if s == nil || s.Start != 1 || s.Harness != 3 || s.Module != 1 || s.Bot != 3 || s.Rest != 2 {
		t.Fatalf("sides %+v, want start 1, harness 3, module 1, bot 3, rest 2 µs", s)
	}
	var out bytes.Buffer
	s.print(&out)
	if !strings.Contains(out.String(), "bot code 3.0 µs, game module 1.0 µs, harness per call 3.0 µs") {
		t.Errorf("printed %q", out.String())
	}
	m.Harness.BotTimed = 1 // one game module did not measure its bot code
	if s := newBotSides(m); s.Bot != -1 || s.Module != 4 {
		t.Errorf("sides without bot code %+v, want module and bot together (4 µs)", s)
	}
	// A short run whose bot code (wall time) exceeds the time in calls it was read in, and
	// whose calls (wall time) exceed the harnesses' CPU: no side is below nothing.
	m.Harness = pyclass.HarnessTimes{Processes: 2, BotTimed: 2, Ready: time.Second, CPU: 2 * time.Second,
		InCalls: 4 * time.Second, Bot: 5 * time.Second, Calls: 1_000_000}
	if s := newBotSides(m); s.Module != 0 || s.Harness != 0 || s.Bot != 5 {
		t.Errorf("sides of a short run %+v, want module 0, harness 0, bot 5 µs", s)
	}
	m.Harness = pyclass.HarnessTimes{}
	if s := newBotSides(m); s != nil {
		t.Errorf("sides without reports: %+v", s)
	}
}
