package pyclass

import (
	"fmt"
	"sync"
	"time"

	"github.com/kothd/kothd/engine"
)

// Time budgets of a pyclass run. Games run in lockstep, so a slow bot holds every other
// game up; a per-class budget alone let one answer of 100 slow classes add hours to
// everyone's run. Three accounts bound it: each bot's (Budget), each answer's, shared by
// its classes (AnswerBudget), and the run's (TotalBudget), shared out evenly so that no
// bot spends another's share. Past a budget, a bot's calls get the rules' default at once,
// counted as timeouts.
//
// What is charged is CPU time where the kernel can tell (the sandbox's cgroup), so a
// loaded host does not spend a bot's budget; wall time counts too, WallFactor times more
// of it allowed, for a bot that sleeps or waits and so uses no CPU while holding the
// games up. Without cgroups, wall time is all there is and is charged as CPU.
//
// An answer's wall time has a bound of its own (AnswerWall, limits.answer_wall; by default
// the answer's budget once, not WallFactor times): the games wait for a bot's batch, so
// the wall time its classes take together is what the answer can add to the run. Ten
// classes taking turns to sleep just under the call's wall limit never fault; with only
// WallFactor times the answer's budget (2 × 5 minutes) they added 50 minutes to a run.

// WallFactor is how much longer in wall time than in CPU time a call, or a budget, may
// last: the backstop for a bot that waits, sized for a host loaded several times over.
const WallFactor = 5

// account is the time spent by a bot, an answer or a run.
type account struct {
	cpu, wall time.Duration
}

func (a account) over(limit time.Duration) bool {
	return limit > 0 && (a.cpu >= limit || a.wall >= WallFactor*limit)
}

// budgets holds the accounts of one pool.
type budgets struct {
	mu        sync.Mutex
	perBot    time.Duration // Budget, or the bot's share of TotalBudget if smaller
	perAnswer time.Duration
	// answerWall is the wall time an answer's classes may take together (AnswerWall, or
	// perAnswer).
	answerWall time.Duration
	shared     bool // perBot is the share of TotalBudget
	bots       []account
	answers    map[int64]*account
	classes    map[int64]int // bots of each answer
}

func newBudgets(cfg PyConfig, bots []engine.Bot) *budgets {
	b := &budgets{perBot: cfg.Budget, perAnswer: cfg.AnswerBudget, answerWall: cfg.AnswerWall, bots: make([]account, len(bots)), answers: map[int64]*account{}, classes: map[int64]int{}}
	if b.answerWall <= 0 {
		b.answerWall = b.perAnswer // limits.answer_wall's default (docs/config.md): one place for it
	}
	if cfg.TotalBudget > 0 && len(bots) > 0 {
		if share := cfg.TotalBudget / time.Duration(len(bots)); b.perBot <= 0 || share < b.perBot {
			b.perBot, b.shared = share, true
		}
	}
	for _, bot := range bots {
		if bot.AnswerID != 0 && b.answers[bot.AnswerID] == nil {
			b.answers[bot.AnswerID] = &account{}
		}
		b.classes[bot.AnswerID]++
	}
	return b
}

// exhausted says why bot i may not spend more time, or "".
func (b *budgets) exhausted(i int, answer int64) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bots[i].over(b.perBot) {
		return b.botReason()
	}
	if a := b.answers[answer]; a != nil {
		if b.perAnswer > 0 && a.cpu >= b.perAnswer {
			return b.answerReason()
		}
		if b.answerWall > 0 && a.wall >= b.answerWall {
			return b.answerWallReason()
		}
	}
	return ""
}

// tightest says which budget stops bot i: a spent one, else the one with the least wall
// time left ("" if none bounds it). A batch cut at the wall time its budgets had left
// ends before it is charged to them.
func (b *budgets) tightest(i int, answer int64) string {
	if why := b.exhausted(i, answer); why != "" {
		return why
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.answers[answer]
	answerBound := a != nil && b.answerWall > 0
	switch {
	case b.perBot > 0 && (!answerBound || WallFactor*b.perBot-b.bots[i].wall <= b.answerWall-a.wall):
		return b.botReason()
	case answerBound:
		return b.answerWallReason()
	}
	return ""
}

func (b *budgets) botReason() string {
	if b.shared {
		return fmt.Sprintf("spent its share (%s) of the run's time budget; calls get the default", b.perBot)
	}
	return fmt.Sprintf("spent its time budget for this run (%s); calls get the default", b.perBot)
}

func (b *budgets) answerWallReason() string {
	return fmt.Sprintf("its answer's classes together held the games up for the answer's wall time for this run (%s, limits.answer_wall); calls get the default", b.answerWall)
}

func (b *budgets) answerReason() string {
	return fmt.Sprintf("its answer's classes together spent the answer's time budget for this run (%s); calls get the default", b.perAnswer)
}

// charge books time spent by bot i.
func (b *budgets) charge(i int, answer int64, cpu, wall time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bots[i].cpu += cpu
	b.bots[i].wall += wall
	if a := b.answers[answer]; a != nil {
		a.cpu += cpu
		a.wall += wall
	}
}

// bounded reports whether any budget bounds the pool's bots.
func (b *budgets) bounded() bool { return b.perBot > 0 || b.perAnswer > 0 || b.answerWall > 0 }

// left is what bot i may still spend before one of its budgets is spent: CPU time, wall
// time, and the CPU time left per class of its answer (the answer's left shared by its
// classes, which may all spend at once). ok is false when no budget bounds it.
func (b *budgets) left(i int, answer int64) (cpu, wall, perClass time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// cpuLimit 0: no CPU bound (only wall); wallLimit 0: none at all.
	take := func(a account, cpuLimit, wallLimit time.Duration, classes int) {
		if wallLimit <= 0 {
			return
		}
		c, w := time.Duration(1<<62), max(wallLimit-a.wall, 0)
		if cpuLimit > 0 {
			c = max(cpuLimit-a.cpu, 0)
		}
		if !ok {
			cpu, wall, perClass, ok = c, w, c/time.Duration(classes), true
			return
		}
		cpu, wall, perClass = min(cpu, c), min(wall, w), min(perClass, c/time.Duration(classes))
	}
	if b.perBot > 0 {
		take(b.bots[i], b.perBot, WallFactor*b.perBot, 1)
	}
	if a := b.answers[answer]; a != nil {
		take(*a, b.perAnswer, b.answerWall, max(b.classes[answer], 1))
	}
	return cpu, wall, perClass, ok
}
