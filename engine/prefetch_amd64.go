package engine

// prefetch is PREFETCHT0 (prefetch_amd64.s).
//
//go:noescape
func prefetch(addr uintptr)
