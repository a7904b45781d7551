package protocol

import (
	"sync"
	"time"

	"github.com/kothd/kothd/engine"
)

// OneShot is the accounting of a run of a protocol whose units each keep their own bots'
// processes (argv's launchers, stdio's lines): every bot's faults over the run, folded
// from its units in unit order (UnitFold); the wall time its decisions took, against
// limits.run_budget; and the bench. Each unit counts its own decisions and its bots'
// fault streaks (OneShotUnit): a unit's decisions come in an order the seed fixes, so the
// same seed benches a bot at the same game.
type OneShot struct {
	Stats  []*Stats // the run's accounting, per bot: the units folded so far
	streak int      // limits.fault_streak (FaultStreak; 0: never, as in validation)
	budget time.Duration
	fold   *UnitFold
	mu     sync.Mutex
	spent  []time.Duration // per bot, guarded by mu
}

// OneShotUnit is one unit's accounting: its decisions per bot, and each bot's last
// decisions that all faulted. A bot's decisions in a unit come one at a time.
type OneShotUnit struct {
	Stats   []*Stats
	faulted []int
}

// NewOneShot is the accounting of a run of bots bots under env's limits; a validation
// (streak 0) benches nobody for a streak.
func NewOneShot(bots, streak int, budget time.Duration) *OneShot {
	o := &OneShot{streak: streak, budget: budget, spent: make([]time.Duration, bots)}
	for range bots {
		o.Stats = append(o.Stats, NewStats())
	}
	o.fold = NewUnitFold(o.Stats)
	return o
}

// NewUnit is a unit's empty accounting.
func (o *OneShot) NewUnit() *OneShotUnit {
	u := &OneShotUnit{Stats: make([]*Stats, len(o.Stats)), faulted: make([]int, len(o.Stats))}
	for i := range u.Stats {
		u.Stats[i] = NewStats()
	}
	return u
}

// Decide makes one decision of bot in unit u and counts it: the bench's fault without
// calling do when the bot sits out (its last decisions in u all faulted, or its decisions
// took more than the run budget), else do's answer, passed through check when do did not
// fault. The time do took counts toward the budget unless the host failed it.
func (o *OneShot) Decide(u *OneShotUnit, bot int, at engine.At, input any, check func(string) *engine.Fault, do func() (string, *engine.Fault)) (string, *engine.Fault) {
	if f := o.benched(u, bot, at); f != nil {
		u.Stats[bot].Record(f, input)
		return "", f
	}
	start := time.Now()
	ans, f := do()
	if f == nil || f.Outcome != engine.HostFault { // the host's failures are not the bot's time
		o.mu.Lock()
		o.spent[bot] += time.Since(start)
		o.mu.Unlock()
	}
	if f == nil && check != nil {
		f = check(ans)
	}
	u.Stats[bot].Record(f, input)
	u.faulted[bot] = Streak(u.faulted[bot], f, f == nil)
	return ans, f
}

// benched is the fault of a decision bot sits out (OneShotBench), or nil; the first time,
// the run's accounting notes the bench.
func (o *OneShot) benched(u *OneShotUnit, bot int, at engine.At) *engine.Fault {
	o.mu.Lock()
	defer o.mu.Unlock() // two units may bench the bot at once: one records the bench
	f, b := OneShotBench(at.Game, u.faulted[bot], o.streak, o.spent[bot], o.budget)
	if f == nil {
		return nil
	}
	if o.Stats[bot].Bench() == nil {
		o.Stats[bot].SetBench(b)
	}
	o.Stats[bot].BenchCalls(1)
	return f
}

// EndUnit adds unit k's accounting to the run's, in unit order.
func (o *OneShot) EndUnit(k int, u *OneShotUnit) { o.fold.End(k, u.Stats) }

// Flush adds every ended unit not yet added (the run stopped early, units with gaps).
func (o *OneShot) Flush() { o.fold.Flush() }
