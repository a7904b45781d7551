package protocol

import (
	"fmt"
	"time"

	"github.com/kothd/kothd/engine"
)

// defaultFaultStreak is limits.fault_streak when the challenge sets none: an honest bot
// that errs in one state of a game answers well again in the next game, long before twenty
// of its decisions in a row have faulted.
const defaultFaultStreak = 20

// FaultStreak is the number of faulted decisions in a row that benches a bot for the
// configured limits.fault_streak n: the default for 0, never (0) for a negative n.
func FaultStreak(n int) int {
	switch {
	case n == 0:
		return defaultFaultStreak
	case n < 0:
		return 0 // never
	}
	return n
}

// BenchedFault is what a benched bot's calls get: a timeout that says why.
func BenchedFault(streak int) *engine.Fault {
	return &engine.Fault{Outcome: engine.Timeout, Benched: true,
		Detail: fmt.Sprintf("benched after %d faulted decisions in a row (limits.fault_streak); calls get the default", streak)}
}

// Streak is a bot's run of faulted decisions after one more decision that ended in f:
// back to 0 when the bot answered (answered: f is nil, or a fault that still gave its
// answer), one longer for any other fault but the host's, which is no decision of the
// bot's.
func Streak(run int, f *engine.Fault, answered bool) int {
	switch {
	case answered:
		return 0
	case f.Outcome == engine.HostFault:
		return run
	}
	return run + 1
}

// OneShotBench says whether a one-shot bot (argv, dirfiles) sits out its next decisions,
// with its last faulted decisions in a row (faulted) against limits.fault_streak (streak;
// 0: never) and the wall time its decisions took (spent) against limits.run_budget
// (budget; 0: none): the fault its decisions get from then on and the bench to record,
// or nil.
func OneShotBench(game, faulted, streak int, spent, budget time.Duration) (*engine.Fault, *Bench) {
	b := &Bench{Game: game, Streak: faulted}
	switch {
	case streak > 0 && faulted >= streak:
		return BenchedFault(faulted), b
	case budget > 0 && spent > budget:
		b.Budget = budget
		return &engine.Fault{Outcome: engine.Timeout, Benched: true,
			Detail: fmt.Sprintf("benched: its decisions took %s of wall time together, over its run budget of %s (limits.run_budget); calls get the default",
				spent.Round(time.Millisecond), budget)}, b
	}
	return nil, nil
}

// Bench says that and when a bot of a run was benched.
type Bench struct {
	Game   int // the game of the first call that got the default without being sent
	Streak int // the faulted decisions in a row that benched it (at least FaultStreak)
	Calls  int // the calls answered with the default since, none of them sent
	// Budget is the run budget a one-shot bot's decisions used up, when that and not a
	// streak benched it (Streak is then the faults in a row it had, maybe none).
	Budget time.Duration
}

// BenchCalls counts n calls answered by the bench.
func (s *Stats) BenchCalls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bench != nil {
		s.bench.Calls += n
	}
}

// Bench returns when the bot was benched in the run, or nil if it was not.
func (s *Stats) Bench() *Bench {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bench == nil {
		return nil
	}
	b := *s.bench
	return &b
}

// SetBench records the bench: the pool's, or one kept elsewhere (the run's accounting in
// game order takes the pool's).
func (s *Stats) SetBench(b *Bench) {
	if b == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *b
	s.bench = &c
}
