package protocol

// Bench says that and when a bot of a run was benched.
type Bench struct {
	Game   int // the game of the first call that got the default without being sent
	Streak int // the faulted decisions in a row that benched it (at least FaultStreak)
	Calls  int // the calls answered with the default since, none of them sent
}

// BenchCalls counts n calls answered by the bench.
func (s *Stats) BenchCalls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bench != nil {
		s.bench.Calls += n
	}
}

// Bench returns when the bot was benched in the run, or nil if it was not.
func (s *Stats) Bench() *Bench {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bench == nil {
		return nil
	}
	b := *s.bench
	return &b
}

// SetBench records the bench: the pool's, or one kept elsewhere (the run's accounting in
// game order takes the pool's).
func (s *Stats) SetBench(b *Bench) {
	if b == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *b
	s.bench = &c
}
