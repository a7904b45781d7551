package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// answerShares groups an answer's classes under its one cgroup, gives a built-in bot its
// own, sorts by CPU and divides by each answer's decisions; the text names the top answer
// first.
func TestAnswerShares(t *testing.T) {
	bots := []engine.Bot{
		{Entrant: engine.Entrant{Name: "A1", Author: "x"}, AnswerID: 10},
		{Entrant: engine.Entrant{Name: "Hog", Author: "y"}, AnswerID: 11},
		{Entrant: engine.Entrant{Name: "A2", Author: "x"}, AnswerID: 10},
		{Entrant: engine.Entrant{Name: "GoToTenBot", Baseline: true}}, // built-in: its own key, b3
	}
	m := playMeasure{
		ByAnswer:     map[string]time.Duration{"a10": 2 * time.Second, "a11": 6 * time.Second, "b3": 2 * time.Second},
		BotDecisions: []int64{1000, 3000, 1000, 4000},
	}
	got := answerShares(bots, m)
	if len(got) != 3 {
		t.Fatalf("want 3 answers, got %+v", got)
	}
	top := got[0]
	if top.AnswerID != 11 || top.Share != 0.6 || top.CPUPerDecision != 2000 {
		t.Errorf("top answer %+v, want answer 11 with 60 %% and 2000 µs per decision", top)
	}
	if a := got[1]; a.Key != "a10" || strings.Join(a.Bots, ",") != "A1,A2" || a.Decisions != 2000 || a.CPUPerDecision != 1000 {
		t.Errorf("answer 10: %+v, want its two classes and their 2000 decisions", a)
	}
	if a := got[2]; a.Key != "b3" || a.AnswerID != 0 {
		t.Errorf("built-in bot: %+v", a)
	}
	var out bytes.Buffer
	printShares(&out, got)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "60.0 %") || !strings.Contains(lines[1], "Hog (answer 11)") || !strings.Contains(lines[3], "(built-in)") {
		t.Errorf("text:\n%s", out.String())
	}
	if answerShares(bots, playMeasure{}) != nil {
		t.Error("without cgroups there are no shares to show")
	}
}
