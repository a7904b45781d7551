package protocol

import "github.com/kothd/kothd/engine"

// StatsState is a bot's accounting as plain data: what a run's checkpoint keeps so that a
// resumed run's accounting is the uninterrupted run's.
type StatsState struct {
	Counts map[engine.Outcome]int `json:",omitempty"`
	First  *FirstFault            `json:",omitempty"`
	Host   int                    `json:",omitempty"`
}

// State returns a copy of the accounting as data.
func (s *Stats) State() StatsState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := StatsState{Counts: s.countsCopy(), Host: s.host}
	if s.first != nil {
		f := *s.first
		st.First = &f
	}
	return st
}

// StatsFrom returns accounting holding st (as saved by State).
func StatsFrom(st StatsState) *Stats {
	s := NewStats()
	s.Add(st)
	return s
}

// Add adds st's decisions to the accounting, as if they had come after those it holds:
// st's first fault becomes the first only when there was none (or only the bench's).
func (s *Stats) Add(st StatsState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range st.Counts {
		s.add(k, v)
	}
	s.host += st.Host
	if st.First != nil && takesFirst(s.first, st.First.Benched) {
		f := *st.First
		s.first = &f
	}
}
