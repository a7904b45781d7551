package engine

import (
	"testing"
	"unsafe"
)

// Prefetch is a hint: it reads nothing and never faults, whatever the address (a slot's
// arguments reckon the lines of their slot from their own address, also outside a slot).
func TestPrefetchNeverFaults(t *testing.T) {
	var x [4 * CacheLine]byte
	Prefetch(nil)
	Prefetch(unsafe.Pointer(&x[1]))
	PrefetchRange(unsafe.Pointer(&x), unsafe.Sizeof(x))
	for _, a := range []uintptr{1, 0xdead0000, ^uintptr(0) - 7} {
		PrefetchAt(a) // unmapped, kernel space
	}
}

// stepCounter is a Stepper that counts its Prefetch calls and ends after steps steps.
type stepCounter struct {
	steps, prefetched int
}

func (s *stepCounter) Step(_ []Reply, calls []Call) []Call {
	if s.steps == 0 {
		return calls
	}
	s.steps--
	return append(calls, Call{Method: "m"})
}

func (s *stepCounter) Prefetch() { s.prefetched++ }

// RunSteps prefetches the games it is about to step (Prefetcher): each game a few games
// ahead of its step, in every tick but its first (its first step is at its start).
func TestRunStepsPrefetches(t *testing.T) {
	const games, steps = 64, 5
	var all []*stepCounter
	err := Lockstep{Exchanger: echo{}, Concurrency: games}.RunSteps(t.Context(), games, func(int) Stepper {
		s := &stepCounter{steps: steps}
		all = append(all, s)
		return s
	})
	if err != nil {
		t.Fatal(err)
	}
	prefetched := 0
	for _, s := range all {
		prefetched += s.prefetched
	}
	// Of each tick's games, all but the first prefetchAhead are prefetched.
	if want := steps * (games - prefetchAhead); prefetched != want {
		t.Fatalf("%d prefetches, want %d", prefetched, want)
	}
}
