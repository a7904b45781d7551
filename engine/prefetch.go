package engine

import "unsafe"

// Prefetcher is a Stepper, or a Call's Args, that can ask the processor to start loading the memory its next
// Step will touch (Prefetch), so that the loads of several games are in flight at once:
// a run of many games in flight steps each game long after its memory left the caches,
// and one load after the other, each a trip to memory, is most of a decision's cost.
// RunSteps calls Prefetch on a game a few games before it steps it; a runner that encodes
// calls may call it on a call's Args a few calls before it encodes them.
type Prefetcher interface {
	Prefetch()
}

// CacheLine is the size of the unit Prefetch loads, on the processors kothd runs on.
const CacheLine = 64

// prefetchAhead is how many games ahead of the one being stepped RunSteps prefetches.
const prefetchAhead = 4

// Prefetch hints the processor to bring the cache line at p into its caches. It reads
// nothing and never faults: p may point anywhere. A no-op where no instruction for it is
// written (prefetch_other.go).
func Prefetch(p unsafe.Pointer) { prefetch(uintptr(p)) }

// PrefetchAt is Prefetch for an address reckoned as a number: an address that may lie
// outside the object it was reckoned from (an unsafe.Pointer may not, and -race's
// pointer checks would stop the program).
func PrefetchAt(addr uintptr) { prefetch(addr) }

// PrefetchRange is Prefetch for the n bytes from p on.
func PrefetchRange(p unsafe.Pointer, n uintptr) {
	for a, end := uintptr(p), uintptr(p)+n; a < end; a += CacheLine {
		prefetch(a)
	}
}
