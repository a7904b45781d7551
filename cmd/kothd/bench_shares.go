package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/runner/sandbox"
)

// answerCPU is one answer's part of the bots' CPU in a bench run: every sandbox made under
// its cgroup (sandbox.Shares; all of the answer's classes), as the cgroups counted it. A bot
// that takes most of the bots' CPU shows at the top of the list, and its CPU per decision
// says whether it is its code or its number of decisions.
type answerCPU struct {
	Key       string   `json:"key"`       // sandbox.AnswerKey: a<answer id>, or b<bot> for a built-in bot
	AnswerID  int64    `json:"answer_id"` // 0 for a built-in bot
	Bots      []string `json:"bots"`
	Author    string   `json:"author,omitempty"`
	CPU       float64  `json:"cpu_s"`
	Share     float64  `json:"share"` // of the bots' CPU the cgroups counted, 0–1
	Decisions int64    `json:"decisions"`
	// CPU per decision, microseconds: its process's and sandbox's CPU over its decisions.
	CPUPerDecision float64 `json:"cpu_per_decision_us"`
}

// answerShares groups the run's bots by answer and gives each answer its CPU, sorted by
// CPU, largest first; nil when no cgroup counted any (sandbox none, cgroups off).
func answerShares(bots []engine.Bot, m playMeasure) []answerCPU {
	if len(m.ByAnswer) == 0 {
		return nil
	}
	var total time.Duration
	for _, d := range m.ByAnswer {
		total += d
	}
	byKey := map[string]*answerCPU{}
	var out []*answerCPU
	for i, b := range bots {
		key := sandbox.AnswerKey(b.AnswerID, i)
		a := byKey[key]
		if a == nil {
			d := m.ByAnswer[key]
			a = &answerCPU{Key: key, AnswerID: b.AnswerID, Author: b.Author, CPU: d.Seconds(), Share: per(float64(d), float64(total))}
			byKey[key] = a
			out = append(out, a)
		}
		a.Bots = append(a.Bots, b.Name)
		if i < len(m.BotDecisions) {
			a.Decisions += m.BotDecisions[i]
		}
	}
	res := make([]answerCPU, 0, len(out))
	for _, a := range out {
		a.CPUPerDecision = per(a.CPU*1e6, float64(a.Decisions))
		res = append(res, *a)
	}
	slices.SortStableFunc(res, func(x, y answerCPU) int { return cmp.Compare(y.CPU, x.CPU) })
	return res
}

// shownAnswers is how many answers the text output lists; --json has them all.
const shownAnswers = 8

// printShares writes the answers' shares of the bots' CPU, largest first: the first few,
// then what the rest add up to.
func printShares(w io.Writer, answers []answerCPU) {
	if len(answers) == 0 {
		return
	}
	even := 1 / float64(len(answers))
	fmt.Fprintf(w, "  bots' CPU        by answer, largest first (an even share would be %.1f %%; --json lists all %d):\n", 100*even, len(answers))
	for i, a := range answers {
		if i == shownAnswers {
			var cpu, share float64
			for _, r := range answers[i:] {
				cpu += r.CPU
				share += r.Share
			}
			fmt.Fprintf(w, "    %5.1f %%  %7.2f s  the other %d answers, each at most %.1f %%\n", 100*share, cpu, len(answers)-i, 100*a.Share)
			break
		}
		fmt.Fprintf(w, "    %5.1f %%  %7.2f s  %6.1f µs per decision  %s\n", 100*a.Share, a.CPU, a.CPUPerDecision, answerLabel(a))
	}
}

// answerLabel names an answer by its bots, and by its id when it has one.
func answerLabel(a answerCPU) string {
	names := mdtext.Terminal(strings.Join(a.Bots, ", "))
	if a.AnswerID == 0 {
		return names + " (built-in)"
	}
	return fmt.Sprintf("%s (answer %d)", names, a.AnswerID)
}
