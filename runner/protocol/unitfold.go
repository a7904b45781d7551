package protocol

import (
	"maps"
	"slices"
	"sync"
)

// UnitFold adds the per-bot accounting of a run's units (Bank Heist's tournaments, a
// referee's games) to the run's, in unit order whatever order the units end in: a first
// fault or a bench must be the same for the same seed, and units in flight end in the
// order the machine happens to finish them. The one-shot protocols (argv, stdio) share it.
type UnitFold struct {
	mu     sync.Mutex
	run    []*Stats
	ended  map[int][]*Stats // units over but not yet added: one before them is still playing
	folded int              // units 0..folded-1 are in run
}

// NewUnitFold folds units into run (one Stats per bot).
func NewUnitFold(run []*Stats) *UnitFold {
	return &UnitFold{run: run, ended: map[int][]*Stats{}}
}

// End records unit k's accounting and adds it, with every ended unit after it, once every
// unit before it has been added.
func (f *UnitFold) End(k int, unit []*Stats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended[k] = unit
	for {
		next, ok := f.ended[f.folded]
		if !ok {
			return
		}
		f.add(next)
		delete(f.ended, f.folded)
		f.folded++
	}
}

// Flush adds every ended unit not yet added, in unit order: the run stopped early, or its
// units were numbered with gaps (a shard's).
func (f *UnitFold) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(f.ended)) {
		f.add(f.ended[k])
		delete(f.ended, k)
	}
}

func (f *UnitFold) add(unit []*Stats) {
	for i, st := range unit {
		f.run[i].Add(st.State())
	}
}
