package pyclass

import (
	"github.com/kothd/kothd/runner/protocol"

	"github.com/kothd/kothd/engine"
)

// Benching: a bot that has faulted on every one of its last FaultStreak decisions (a
// spinner, a sleeper, a crasher, a bot that answers garbage) stops costing the run time.
// From its next batch on, every call of the run gets the rules' default at once, counted
// as a timeout that says why; its process is ended and no other is started. Before this a
// field of seven such bots kept a 200-game forty run from finishing in ten minutes: each
// burnt up to its whole run budget.
//
// The streak is counted in the order the bot is sent its calls, which the lockstep fixes
// by the seed (one worker per bot answers its batches in the order they were queued), so
// for the same seed, bots and settings a bot is benched at the same game. Only decisions
// count (PyConfig.Decision): a call that sets a game up or tears it down ("new", "end")
// neither breaks nor extends a streak, so a bot whose constructor runs but whose every move
// raises is benched all the same. A host fault is no decision of the bot's and is not
// counted. A batch that fails as a whole (its process died, or it overran the batch's
// deadline) faulted each of its decisions, and each counts.

// streak is one bot's run of faulted decisions. Only the bot's worker goroutine touches
// it; what is published goes to the bot's Stats.
type streak struct {
	run      int
	benched  bool
	decision []bool // of the batch in flight, by its calls' order (note)
}

// benched answers a batch of a benched bot: the fault each of its calls gets, or nil when
// the bot is not benched. It ends the bot's process at the bench.
func (b *pyProc) benched(pool *PyPool, calls []engine.Call, idx []int) *engine.Fault {
	s := &b.streak
	if !s.benched {
		limit := pool.cfg.FaultStreak
		if limit <= 0 || s.run < limit {
			return nil
		}
		s.benched = true
		if b.proc != nil {
			b.drop()
		}
		b.stats.SetBench(&protocol.Bench{Game: calls[idx[0]].Game, Streak: s.run})
	}
	b.stats.BenchCalls(len(idx))
	return protocol.BenchedFault(s.run)
}

// count adds a batch's replies to the streak, in the order the bot answered them.
func (s *streak) count(cfg PyConfig, calls []engine.Call, idx []int, replies []engine.Reply) {
	s.note(cfg, calls, idx)
	s.tally(cfg, idx, replies)
}

// note reads which of a batch's calls are decisions, for tally once the batch is answered:
// before the batch is sent, while the calls are in the caches (the encoding reads them
// next), not after the wait for the reply, when other bots' batches have pushed them out
// (of a tick of 16384 calls, each bot's are strewn over the whole of it).
func (s *streak) note(cfg PyConfig, calls []engine.Call, idx []int) {
	s.decision = s.decision[:0]
	if cfg.FaultStreak <= 0 || s.benched {
		return
	}
	for _, i := range idx {
		s.decision = append(s.decision, cfg.isDecision(calls[i].Method))
	}
}

// tally adds the replies of the batch note read to the streak, in the order the bot
// answered them.
func (s *streak) tally(cfg PyConfig, idx []int, replies []engine.Reply) {
	if cfg.FaultStreak <= 0 || s.benched || len(s.decision) != len(idx) {
		return
	}
	for k, i := range idx {
		if !s.decision[k] {
			continue
		}
		f := replies[i].Fault
		s.run = protocol.Streak(s.run, f, f == nil || f.Ruled) // an invalid move is an answer
	}
}

// isDecision says whether a call of method is one of the bot's decisions.
func (c PyConfig) isDecision(method string) bool {
	if c.Decision == nil {
		return method != "end"
	}
	return c.Decision(method)
}
