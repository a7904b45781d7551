package pyclass

import (
	"bytes"
	"encoding/json"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
)

// HarnessTimes is where the harness processes' time went, as they told it in their stats
// line at the end (harness/pyclass.py): for kothd bench, which splits the bots' CPU into
// the harness's start-up, the harness's own work per call, the game module's and the bots'
// own code. The figures are the bot process's word (the harness runs in the bot's
// interpreter): nothing but the bench reads them, never a budget or a score. A process
// that died or was killed before the end did not report.
type HarnessTimes struct {
	Processes int           // processes that reported
	Ready     time.Duration // their CPU time when they were ready to serve
	CPU       time.Duration // their CPU time at the end
	InCalls   time.Duration // time inside the game module's Handler.call (estimated: see parseStats)
	Bot       time.Duration // of that, inside the bot's own methods (BotTimed processes only)
	BotTimed  int           // processes whose game module measured Bot
	Calls     int64         // calls they served
}

// StatsEvery is how many calls a measured harness serves for each one it times
// (MeasureHarnesses): timing every call cost the C loop a fifth more CPU a call
// (pyclass.py), which the bench would then report of a daemon that never measures.
const StatsEvery = 7

// measureHarnesses: the processes started from now on tell their times, timing one call
// in this many (0: no stats; kothd bench turns them on; a daemon's runs neither pay for
// the figures nor wait for them at their end).
var measureHarnesses atomic.Int32

// MeasureHarnesses has the processes started after it tell their times, timing one call
// in every n (StatsEvery for kothd bench; 1, every call, for a test that must see each
// go through the game module's timed_call; 0: no stats).
func MeasureHarnesses(n int) { measureHarnesses.Store(int32(max(n, 0))) }

var harnessTotals struct {
	sync.Mutex
	t HarnessTimes
}

// HarnessTotals is the sum of every stats line read since kothd started.
func HarnessTotals() HarnessTimes {
	harnessTotals.Lock()
	defer harnessTotals.Unlock()
	return harnessTotals.t
}

// Sub is t less an earlier total u.
func (t HarnessTimes) Sub(u HarnessTimes) HarnessTimes {
	return HarnessTimes{
		Processes: t.Processes - u.Processes, Ready: t.Ready - u.Ready, CPU: t.CPU - u.CPU,
		InCalls: t.InCalls - u.InCalls, Bot: t.Bot - u.Bot, BotTimed: t.BotTimed - u.BotTimed, Calls: t.Calls - u.Calls,
	}
}

// maxReportSeconds bounds each figure of a stats line: a bot may write anything there,
// and a sum must stay a sum (no overflow, no NaN).
const maxReportSeconds = 1e6

// statsRequest asks a harness for its stats line (harness/pyclass.py): sent by Close, once
// the run's batches are done. (Read after the process's end, the line would race with the
// closing of its pipe by the process's wait.)
var statsRequest = []byte(`{"stats":true}`)

// statsWait bounds the wait for a harness's stats line: a harness that takes longer is
// killed by Close anyway, and only the bench's figures miss it.
const statsWait = time.Second

// askStats asks the process for its stats line and counts it.
func askStats(p *sandbox.LineProc) {
	if !p.Alive() {
		return
	}
	if line, ok := p.Ask(statsRequest, statsWait); ok {
		countHarness(line)
	}
}

// countHarness adds a process's stats line to the totals; anything else is ignored.
func countHarness(line []byte) {
	t, ok := parseStats(line)
	if !ok {
		return
	}
	harnessTotals.Lock()
	defer harnessTotals.Unlock()
	h := &harnessTotals.t
	h.Processes += t.Processes
	h.Ready += t.Ready
	h.CPU += t.CPU
	h.InCalls += t.InCalls
	h.Bot += t.Bot
	h.BotTimed += t.BotTimed
	h.Calls += t.Calls
}

// parseStats reads a stats line as one process's HarnessTimes; ok is false for anything
// but a well-formed line of figures within bounds. The harness times one call in the
// setup's "stats" and says how many it timed (ns, at most n, the first call always): its
// time in calls and the bot's are scaled up by n/ns.
func parseStats(line []byte) (HarnessTimes, bool) {
	if !bytes.HasPrefix(line, []byte(`{"stats":`)) {
		return HarnessTimes{}, false
	}
	var v struct {
		Stats struct {
			Ready, CPU, Calls float64
			Bot               *float64
			N                 int64
			NS                *int64
		} `json:"stats"`
	}
	if json.Unmarshal(line, &v) != nil {
		return HarnessTimes{}, false
	}
	s := v.Stats
	for _, x := range []float64{s.Ready, s.CPU, s.Calls} {
		if !(x >= 0 && x <= maxReportSeconds) {
			return HarnessTimes{}, false
		}
	}
	if s.Bot != nil && !(*s.Bot >= 0 && *s.Bot <= maxReportSeconds) || s.N < 0 || s.N > math.MaxInt32*int64(1000) {
		return HarnessTimes{}, false
	}
	if s.NS == nil || *s.NS < 0 || *s.NS > s.N || *s.NS == 0 && s.N > 0 { // the first call is always timed
		return HarnessTimes{}, false
	}
	scale := 1.0
	if *s.NS > 0 {
		scale = float64(s.N) / float64(*s.NS)
	}
	if s.Calls*scale > maxReportSeconds || s.Bot != nil && *s.Bot*scale > maxReportSeconds {
		return HarnessTimes{}, false
	}
	d := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	t := HarnessTimes{Processes: 1, Ready: d(s.Ready), CPU: d(s.CPU), InCalls: d(s.Calls * scale), Calls: s.N}
	if s.Bot != nil {
		t.Bot, t.BotTimed = d(*s.Bot*scale), 1
	}
	return t, true
}
