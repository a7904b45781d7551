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
	if len(why) == 0 || !strings.Contains(why[0], "answer's time budget") && !strings.Contains(why[0], "answer's wall time") {
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

// turnSleepers is an answer of four classes that take turns sleeping just under a call's
// wall limit (WallFactor × 200 ms): in every round one of them sleeps 0.9 s, so their
// sleeps add up in the games' wall time, and none of them ever faults.
const turnSleepers = `
import time
def _make(k):
    def __init__(self, *a):
        type(self).calls += 1
        if type(self).calls % 4 == k:
            time.sleep(0.9)
        Bot.__init__(self, *a)
    return __init__
for _k, _n in enumerate(("SleepA", "SleepB", "SleepC", "SleepD")):
    globals()[_n] = type(_n, (Bot,), {"__init__": _make((_k + 1) % 4), "calls": 0})
`

// One answer, whatever its classes do, adds at most limits.answer_wall to a run's wall
// time: four classes taking turns to sleep just under the call's wall limit never fault,
// and before they could hold the games up for WallFactor times the answer's CPU budget
// (50 minutes with the bundled 5 minutes). Counted in calls, not timed: a sleep answered
// is 0.9 s of wall time charged, so at most AnswerWall / 0.9 s (plus the one in flight when
// it ran out) are answered; the rest get the default at once. An honest bot of another
// answer answers every call.
func TestAnswerWallBoundsTurnSleepers(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	hostile := pyAnswer(t, turnSleepers)
	honest := pyAnswer(t, "class Plain(Bot):\n    pass\n")
	cfg := fortyConfig(200 * time.Millisecond)
	cfg.Budget, cfg.AnswerBudget = time.Hour, time.Hour // CPU: never the bound here
	cfg.AnswerWall = 6 * time.Second
	var bots []engine.Bot
	for _, n := range []string{"SleepA", "SleepB", "SleepC", "SleepD"} {
		bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: n}, Dir: hostile, AnswerID: 1})
	}
	bots = append(bots, engine.Bot{Entrant: engine.Entrant{Name: "Plain"}, Dir: honest, AnswerID: 2})
	pool := NewPyPool(sb, cfg, bots)
	defer pool.Close()
	const rounds = 16 // 16 sleeps of 0.9 s: 14.4 s unbounded
	ok, why := playRounds(t, pool, len(bots), rounds)
	sleeps := 0 // sleeping calls answered: a quarter of each class's answered calls
	for k := range 4 {
		// Class k sleeps on its calls number k+1, k+5, …: of its first n calls, (n+3-k)/4.
		sleeps += (ok[k] + 3 - k) / 4
	}
	t.Logf("answered: sleepers %v (%d sleeps), honest %d; cut off: %d", ok[:4], sleeps, ok[4], len(why))
	if max := int(cfg.AnswerWall/(900*time.Millisecond)) + 1; sleeps > max {
		t.Errorf("the sleepers answered %d sleeping calls: %s of wall time, over the answer's %s", sleeps, time.Duration(sleeps)*900*time.Millisecond, cfg.AnswerWall)
	}
	if len(why) == 0 || !strings.Contains(why[len(why)-1], "limits.answer_wall") {
		t.Errorf("cut-off reasons %q do not name limits.answer_wall", why[max(len(why)-1, 0):])
	}
	if ok[4] != rounds {
		t.Errorf("the honest bot answered %d of %d calls", ok[4], rounds)
	}
	if f := pool.Stats(4).Faults(); f != 0 {
		t.Errorf("the honest bot has %d faults", f)
	}
}

// The answer's wall account: charged by every class, over at answer_wall (not WallFactor
// times answer_budget), with its own reason; answer_wall 0 is the answer's budget once, as
// limits.answer_wall's default is (it was WallFactor times it here, and once in the config).
func TestAnswerWallAccount(t *testing.T) {
	bots := []engine.Bot{{AnswerID: 1}, {AnswerID: 1}, {AnswerID: 2}}
	b := newBudgets(PyConfig{Budget: time.Hour, AnswerBudget: time.Minute, AnswerWall: 10 * time.Second}, bots)
	b.charge(0, 1, 0, 6*time.Second)
	if why := b.exhausted(1, 1); why != "" {
		t.Fatalf("exhausted at 6 s of 10: %s", why)
	}
	if _, wall, _, _ := b.left(1, 1); wall != 4*time.Second {
		t.Errorf("wall left %s, want 4s", wall)
	}
	b.charge(1, 1, 0, 4*time.Second)
	if why := b.exhausted(0, 1); !strings.Contains(why, "limits.answer_wall") {
		t.Errorf("after 10 s of the answer's classes: %q", why)
	}
	if why := b.exhausted(2, 2); why != "" {
		t.Errorf("another answer is bounded too: %q", why)
	}
	old := newBudgets(PyConfig{AnswerBudget: time.Minute}, bots)
	if old.answerWall != time.Minute {
		t.Errorf("answer_wall 0: %s", old.answerWall)
	}
}
