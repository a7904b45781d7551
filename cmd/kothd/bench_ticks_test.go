package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/engine"
)

// TestTickTail: the tail starts after the last tick at least half as full as the fullest,
// and each tick's wall time runs to the next one's start.
func TestTickTail(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	// Full ticks of 100 calls taking 10 ms each, a dip that is not the tail (a tick of 40
	// calls followed by a full one), then three ticks of 30, 10 and 2 calls taking 5 ms.
	ticks := []engine.Tick{
		{Calls: 100, Start: ms(0), End: ms(8)},
		{Calls: 40, Start: ms(10), End: ms(18)},
		{Calls: 100, Start: ms(20), End: ms(28)},
		{Calls: 50, Start: ms(30), End: ms(38)}, // exactly half: not the tail
		{Calls: 30, Start: ms(40), End: ms(44)},
		{Calls: 10, Start: ms(45), End: ms(49)},
		{Calls: 2, Start: ms(50), End: ms(55)},
	}
	tt := newTickTail(ticks)
	if tt.Ticks != 7 || tt.Fullest != 100 || tt.TailTicks != 3 {
		t.Fatalf("ticks %d, fullest %d, tail %d; want 7, 100, 3", tt.Ticks, tt.Fullest, tt.TailTicks)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	if !near(tt.TailCallsShare, 42.0/332) {
		t.Errorf("tail's share of the calls %v, want %v", tt.TailCallsShare, 42.0/332)
	}
	// Wall: 10+10+10+10 before the tail, then 5+5+5 (the last tick to its end).
	if !near(tt.TailWallShare, 15.0/55) {
		t.Errorf("tail's share of the wall time %v, want %v", tt.TailWallShare, 15.0/55)
	}
	if !near(tt.FullUSPerCall, 40000.0/290) || !near(tt.TailUSPerCall, 15000.0/42) {
		t.Errorf("µs per call %v before, %v in the tail; want %v, %v", tt.FullUSPerCall, tt.TailUSPerCall, 40000.0/290, 15000.0/42)
	}
	var out bytes.Buffer
	tt.print(&out)
	if !strings.Contains(out.String(), "7 (the fullest 100 calls):  the last 3") {
		t.Errorf("printed %q", out.String())
	}
	if newTickTail(nil) != nil {
		t.Error("no ticks should give no tail")
	}
	out.Reset()
	(*tickTail)(nil).print(&out)
	if out.Len() != 0 {
		t.Errorf("a run without ticks printed %q", out.String())
	}
}

// TestTickTailLastPhase: a run in lockstep phases (Ruins' pool, then its finals with fewer
// games in flight) is read in its last phase, against that phase's own fullest tick: a
// phase of fewer games in flight is not a tail.
func TestTickTailLastPhase(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	var ticks []engine.Tick
	at := 0
	add := func(phase, calls, dur int) {
		ticks = append(ticks, engine.Tick{Phase: phase, Calls: calls, Start: ms(at), End: ms(at + dur)})
		at += dur
	}
	for range 10 {
		add(0, 400, 10) // the pool: 400 calls a tick
	}
	add(0, 20, 2)
	for range 20 {
		add(1, 32, 2) // the finals: 32 a tick, all under half the pool's fullest
	}
	add(1, 8, 2)
	add(1, 2, 2)
	tt := newTickTail(ticks)
	if tt.Phases != 2 || tt.Ticks != 33 || tt.Fullest != 32 || tt.TailTicks != 2 || tt.Calls != 4000+20+640+8+2 {
		t.Fatalf("%+v", *tt)
	}
	if want := 10.0 / 650; math.Abs(tt.TailCallsShare-want) > 1e-9 {
		t.Errorf("tail's share of the last phase's calls %v, want %v", tt.TailCallsShare, want)
	}
	var out bytes.Buffer
	tt.print(&out)
	if !strings.Contains(out.String(), "33, in 2 lockstep phases; of the last (the fullest 32 calls)") {
		t.Errorf("printed %q", out.String())
	}
}
