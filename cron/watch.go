package cron

import (
	"time"

	"github.com/kothd/kothd/runner/protocol"
)

// Watcher is told what the cycle does, for a host's monitoring (metrics.Metrics serves it
// as Prometheus metrics). Cycle.Watch nil: nobody is told.
type Watcher interface {
	RunEnded(challenge, outcome string, games int, elapsed time.Duration) // outcome: done, failed, interrupted
	Decisions(challenge string, counts map[string]int)                    // by outcome ("ok" for the good ones)
	Progress(challenge string, done int)                                  // games done in the run in play
	Published(challenge, target string, ok bool)
	Commented(challenge string, posted bool)    // a comment on an answer: posted, or refused by the API
	CycleEnded(err error, publicationOnly bool) // a daemon tick
}

// nobody is the Watcher of a cycle without one.
type nobody struct{}

func (nobody) RunEnded(string, string, int, time.Duration) {}
func (nobody) Decisions(string, map[string]int)            {}
func (nobody) Progress(string, int)                        {}
func (nobody) Published(string, string, bool)              {}
func (nobody) Commented(string, bool)                      {}
func (nobody) CycleEnded(error, bool)                      {}

func (c *Cycle) watch() Watcher {
	if c.Watch == nil {
		return nobody{}
	}
	return c.Watch
}

// watchDecisions tells the watcher a run's decisions, summed over its bots.
func (c *Cycle) watchDecisions(challenge string, stats []*protocol.Stats) {
	counts := map[string]int{}
	for _, s := range stats {
		if s == nil {
			continue
		}
		for o, n := range s.Counts() {
			counts[string(o)] += n
		}
	}
	if len(counts) > 0 {
		c.watch().Decisions(challenge, counts)
	}
}
