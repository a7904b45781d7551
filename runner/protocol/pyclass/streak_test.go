package pyclass

import (
	"testing"

	"github.com/kothd/kothd/engine"
)

// The streak counts faulted decisions in the order the bot answered them: a good decision
// ends it, calls that are no decision (setting a game up, ending it) and host faults
// neither end nor extend it.
func TestStreakCountsDecisionsOnly(t *testing.T) {
	cfg := PyConfig{FaultStreak: 3, Decision: func(m string) bool { return m == "start" || m == "next" }}
	crash := &engine.Fault{Outcome: engine.Crash}
	host := &engine.Fault{Outcome: engine.HostFault}
	batch := func(s *streak, methods []string, faults ...*engine.Fault) {
		calls := make([]engine.Call, len(methods))
		replies := make([]engine.Reply, len(methods))
		idx := make([]int, len(methods))
		for i, m := range methods {
			calls[i], replies[i], idx[i] = engine.Call{Method: m}, engine.Reply{Fault: faults[i]}, i
		}
		s.count(cfg, calls, idx, replies)
	}
	var s streak
	batch(&s, []string{"new", "start", "next"}, nil, crash, crash)
	batch(&s, []string{"end", "new"}, nil, nil) // set-up calls that end well break nothing
	batch(&s, []string{"start"}, host)          // the host's fault is no decision of the bot's
	if s.run != 2 {
		t.Fatalf("run %d, want 2", s.run)
	}
	batch(&s, []string{"next", "start"}, nil, crash) // a good decision starts it again
	if s.run != 1 {
		t.Fatalf("run %d, want 1", s.run)
	}
	batch(&s, []string{"start", "end", "next"}, crash, crash, crash)
	if s.run != 3 {
		t.Fatalf("run %d, want 3", s.run)
	}
	cfg.FaultStreak = 0 // never benched: nothing counted
	var off streak
	batch(&off, []string{"start"}, crash)
	if off.run != 0 {
		t.Fatalf("counted with the streak off: %d", off.run)
	}
}
