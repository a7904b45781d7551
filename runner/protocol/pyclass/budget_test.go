package pyclass

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// slowClasses is an answer of four classes whose constructors each compute for 50 ms.
const slowClasses = `
import time
def _work(self, *a):
    t = time.process_time()
    while time.process_time() - t < 0.05:
        pass
    Bot.__init__(self, *a)
for _n in ("SlowA", "SlowB", "SlowC", "SlowD"):
    globals()[_n] = type(_n, (Bot,), {"__init__": _work})
`

// playRounds calls every bot's constructor once per round and counts, per bot, the calls
// answered and the reasons of those cut off.
func playRounds(t *testing.T, pool *PyPool, bots, rounds int) ([]int, []string) {
	t.Helper()
	ok := make([]int, bots)
	var why []string
	for g := range rounds {
		var calls []engine.Call
		for b := range bots {
			calls = append(calls, engine.Call{Bot: b, Game: g, Method: "new", Args: map[string]int{"seat": 0}})
		}
		for b, r := range pool.Exchange(context.Background(), calls) {
			switch {
			case r.Fault == nil:
				ok[b]++
			case r.Fault.Outcome == engine.Timeout:
				why = append(why, r.Fault.Detail)
			default:
				t.Fatalf("bot %d: %v", b, r.Fault)
			}
		}
	}
	return ok, why
}

// The classes of one answer share its budget: an answer of many slow classes spends no
// more of everyone's time than one slow class would (issue 10, item 7).
func TestAnswerBudgetIsShared(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	many := pyAnswer(t, slowClasses)
	one := pyAnswer(t, strings.Replace(slowClasses, `("SlowA", "SlowB", "SlowC", "SlowD")`, `("Lone",)`, 1))
	cfg := fortyConfig(2 * time.Second)
	// Start-ups are charged too (a few hundred ms each under bwrap): four of them must
	// leave the answer some calls.
	cfg.AnswerBudget = 2 * time.Second
	bots := []engine.Bot{{Entrant: engine.Entrant{Name: "SlowA"}, Dir: many, AnswerID: 1}, {Entrant: engine.Entrant{Name: "SlowB"}, Dir: many, AnswerID: 1},
		{Entrant: engine.Entrant{Name: "SlowC"}, Dir: many, AnswerID: 1}, {Entrant: engine.Entrant{Name: "SlowD"}, Dir: many, AnswerID: 1},
		{Entrant: engine.Entrant{Name: "Lone"}, Dir: one, AnswerID: 2}}
	pool := NewPyPool(sb, cfg, bots)
	defer pool.Close()
	ok, why := playRounds(t, pool, len(bots), 40)
	manyOK := ok[0] + ok[1] + ok[2] + ok[3]
	t.Logf("answered: answer of four classes %v, answer of one %d", ok[:4], ok[4])
	if ok[4] == 0 || ok[4] == 40 {
		t.Fatalf("the lone class answered %d of 40 calls: the budget did not bound it or allowed nothing", ok[4])
	}
	if manyOK > 2*ok[4]+4 {
		t.Errorf("four classes of one answer answered %d calls, one class alone %d: the answer's budget is not shared", manyOK, ok[4])
	}
	if len(why) == 0 || !strings.Contains(why[0], "answer's time budget") {
		t.Errorf("cut-off reasons %q do not name the answer's budget", why[:min(len(why), 1)])
	}
}

// The run's budget is shared out evenly: no bot spends another's share.
func TestTotalBudgetShares(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	dir := pyAnswer(t, slowClasses)
	cfg := fortyConfig(2 * time.Second)
	cfg.Budget = time.Hour
	// 800 ms each: its start-up (charged too, a few hundred ms under bwrap) and some of the
	// 30 calls of 50 ms.
	cfg.TotalBudget = 2400 * time.Millisecond
	bots := []engine.Bot{{Entrant: engine.Entrant{Name: "SlowA"}, Dir: dir, AnswerID: 1}, {Entrant: engine.Entrant{Name: "SlowB"}, Dir: dir, AnswerID: 2}, {Entrant: engine.Entrant{Name: "SlowC"}, Dir: dir, AnswerID: 3}}
	pool := NewPyPool(sb, cfg, bots)
	defer pool.Close()
	ok, why := playRounds(t, pool, len(bots), 30)
	for b, n := range ok {
		if n == 0 || n == 30 {
			t.Errorf("bot %d answered %d of 30 calls: its share did not bound it or allowed nothing", b, n)
		}
	}
	if len(why) == 0 || !strings.Contains(why[0], "share") {
		t.Errorf("cut-off reasons %q do not name the share of the run's budget", why[:min(len(why), 1)])
	}
}
