package cluster

import (
	"fmt"
	"time"

	"github.com/kothd/kothd/cron"
)

// Job is one shard of a run as a worker receives it: everything it needs to play the
// shard, and nothing secret (no API key, no GitHub or NATS credentials: the challenge's
// settings and the bots' identities only).
type Job struct {
	Token     string     `json:"token"` // the run's attempt (a daemon restarted mid-run publishes under a new one)
	Shard     cron.Shard `json:"shard"`
	Challenge []byte     `json:"challenge"` // the challenge's config block (YAML)
	Python    string     `json:"python"`    // the daemon's interpreter; a worker may set its own
	Seed      uint64     `json:"seed,string"`
	Games     int        `json:"games"` // the run's length
	Bots      []JobBot   `json:"bots"`
	// Referee is the run's referee (engine/referee): its directory's content hash in the
	// object store and its command; nil for a game whose rules are Go.
	Referee *JobReferee   `json:"referee,omitempty"`
	AckWait time.Duration `json:"ack_wait"` // a worker reports progress three times as often
}

// JobBot is a bot of a run: who it is to the engine, and its directory's content hash
// (the object store's key; "" for a bot the engine plays itself).
type JobBot struct {
	Name     string   `json:"name"`
	Author   string   `json:"author,omitempty"`
	Heading  string   `json:"heading,omitempty"`
	Seed     uint64   `json:"seed,string"`
	Baseline bool     `json:"baseline,omitempty"`
	AnswerID int64    `json:"answer_id,omitempty"`
	Hash     string   `json:"hash,omitempty"`
	Run      []string `json:"run,omitempty"`
}

// JobReferee is a referee as a job carries it.
type JobReferee struct {
	Hash string   `json:"hash"`
	Run  []string `json:"run"`
}

// Outcome is what a worker says of a shard it took: its result, or why it could not play
// it (Attempt of MaxDeliver: the last failure fails the run).
type Outcome struct {
	Token   string            `json:"token"`
	Index   int               `json:"index"`
	Worker  string            `json:"worker"`
	Result  *cron.ShardResult `json:"result,omitempty"`
	Error   string            `json:"error,omitempty"`
	Attempt int               `json:"attempt"`
	Last    bool              `json:"last,omitempty"` // no worker will try again
	// Crowded: a bot ran out of memory with several games in flight (cron/crowd.go); the
	// daemon plays the run again with fewer. No worker tries the shard again.
	Crowded *cron.CrowdedError `json:"crowded,omitempty"`
}

func jobSubjectOf(challenge, token string, index int) string {
	return fmt.Sprintf("%s.%s.%s.%d", jobSubject, challenge, token, index)
}

func resultSubjectOf(token string, index int) string {
	return fmt.Sprintf("%s.%s.%d", resultSubj, token, index)
}
