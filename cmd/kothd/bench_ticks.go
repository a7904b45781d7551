package main

import (
	"fmt"
	"io"
	"time"

	"github.com/kothd/kothd/engine"
)

// tickTail is how a lockstep run's wall time went over its ticks (engine.Tick): the games
// in flight start together and end one by one, so the last ticks carry only the longest
// games' calls, yet each still wakes every bot that has one and waits for the slowest. The
// tail is the ticks after the last one that carried at least half as many calls as the
// fullest. A game played in lockstep phases (Ruins: a pool, then finals with fewer games
// in flight) is read in its last phase, whose own fullest tick is the measure: a phase
// with fewer games in flight is not a tail. Absent for engines without ticks (Bank Heist,
// Mafia).
type tickTail struct {
	Ticks  int `json:"ticks"`
	Calls  int `json:"calls"`  // every call the ticks carried ("new" and "end" too)
	Phases int `json:"phases"` // lockstep runs; the figures below are the last one's
	// The last phase's fullest tick, and its tail: its ticks, its share of the phase's
	// calls and of its wall time (from the phase's first tick's start to its last one's
	// end).
	Fullest        int     `json:"fullest_tick_calls"`
	TailTicks      int     `json:"tail_ticks"`
	TailCallsShare float64 `json:"tail_calls_share"`
	TailWallShare  float64 `json:"tail_wall_share"`
	// Microseconds of wall time per call in the phase's full ticks and in its tail.
	FullUSPerCall float64 `json:"full_us_per_call"`
	TailUSPerCall float64 `json:"tail_us_per_call"`
}

// newTickTail reads ticks (in the order they were answered); nil when there are none.
func newTickTail(all []engine.Tick) *tickTail {
	if len(all) == 0 {
		return nil
	}
	t := &tickTail{Ticks: len(all)}
	last := 0
	for _, k := range all {
		t.Calls += k.Calls
		last = max(last, k.Phase)
	}
	var ticks []engine.Tick
	seen := map[int]bool{}
	for _, k := range all {
		seen[k.Phase] = true
		if k.Phase == last {
			ticks = append(ticks, k)
		}
	}
	t.Phases = len(seen)
	for _, k := range ticks {
		t.Fullest = max(t.Fullest, k.Calls)
	}
	tail := len(ticks) // the first tick of the tail
	for tail > 0 && 2*ticks[tail-1].Calls < t.Fullest {
		tail--
	}
	// A tick's wall time runs to the next one's start (the engine's stepping between
	// two exchanges is the tick's too); the last one's to its end.
	span := func(i int) time.Duration {
		if i+1 < len(ticks) {
			return ticks[i+1].Start.Sub(ticks[i].Start)
		}
		return ticks[i].End.Sub(ticks[i].Start)
	}
	var calls, tailCalls int
	var wall, tailWall time.Duration
	for i, k := range ticks {
		calls += k.Calls
		wall += span(i)
		if i >= tail {
			tailCalls += k.Calls
			tailWall += span(i)
		}
	}
	t.TailTicks = len(ticks) - tail
	t.TailCallsShare = per(float64(tailCalls), float64(calls))
	t.TailWallShare = per(float64(tailWall), float64(wall))
	t.FullUSPerCall = per(float64(wall-tailWall)/1e3, float64(calls-tailCalls))
	t.TailUSPerCall = per(float64(tailWall)/1e3, float64(tailCalls))
	return t
}

func (t *tickTail) print(w io.Writer) {
	if t == nil {
		return
	}
	phase := ""
	if t.Phases > 1 {
		phase = fmt.Sprintf(", in %d lockstep phases; of the last", t.Phases)
	}
	fmt.Fprintf(w, "  ticks            %d%s (the fullest %d calls):  the last %d, under half as full: %.0f %% of the calls in %.0f %% of the wall time (%.1f µs per call, %.1f before)\n",
		t.Ticks, phase, t.Fullest, t.TailTicks, 100*t.TailCallsShare, 100*t.TailWallShare, t.TailUSPerCall, t.FullUSPerCall)
}
