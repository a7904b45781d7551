//go:build race

package forty

import (
	"testing"
)

// The arguments' Prefetch reckons their slot's lines from their own address: arguments
// outside a slot (as a test or a log makes them) only prefetch memory they do not read,
// which -race's pointer checks (checkptr) let pass. Only -race can fail this (a prefetch
// never faults), so only -race builds it: go test -race -run ArgsPrefetch ./engine/forty/.
func TestArgsPrefetchOutsideSlot(t *testing.T) {
	b, s, n := &beginArgs{Seat: 1}, &startArgs{Throws: []int{3}, Scores: make([]int, 8)}, &nextArgs{Throws: []int{3, 4}}
	b.Prefetch()
	s.Prefetch()
	n.Prefetch()
	var slot remoteGame
	slot.start.Prefetch()
	slot.next.Prefetch()
	slot.Prefetch()
}
