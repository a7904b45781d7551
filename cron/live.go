package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// LiveRun is what a playing kothd says of a run in progress, for `kothd status` (another
// process, maybe another user): the store records a run's games only at its checkpoints,
// and not every game has them. The file is data_dir/live/<challenge>.json, replaced at
// most once a second while the run plays and removed when it ends; status believes it only
// while the pid in it holds the data directory's lock.
type LiveRun struct {
	PID       int       `json:"pid"`
	Challenge string    `json:"challenge"`
	Run       int64     `json:"run"`
	Seed      uint64    `json:"seed,string"`
	Done      int       `json:"games_done"`
	Total     int       `json:"games_total"`
	Rate      float64   `json:"games_per_second"`
	ETA       float64   `json:"eta_seconds"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	// Shards, for a run a cluster plays (cluster:), counts its shards and names the worker
	// holding each one in flight.
	Shards *ShardStatus                `json:"shards,omitempty"`
	shards atomic.Pointer[ShardStatus] // the latest, copied into Shards when written
}

// LivePath is where a challenge's live run is described.
func LivePath(dataDir, challenge string) string {
	return filepath.Join(dataDir, "live", challenge+".json")
}

// ReadLive reads a challenge's live run; nil when there is none.
func ReadLive(dataDir, challenge string) (*LiveRun, error) {
	b, err := os.ReadFile(LivePath(dataDir, challenge))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l LiveRun
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", LivePath(dataDir, challenge), err)
	}
	return &l, nil
}

// writeLive replaces the file at once (a temporary file renamed), so a reader never sees
// half of it. Failing to write it costs status its progress line, never the run: logged.
func (c *Cycle) writeLive(l *LiveRun) {
	l.PID, l.Updated = os.Getpid(), time.Now().UTC()
	if st := l.shards.Load(); st != nil {
		l.Shards = st
	}
	path := LivePath(c.Config.DataDir, l.Challenge)
	b, _ := json.Marshal(l)
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, b, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		c.Log.Debug("write the live run's progress", "err", err)
	}
}

func (c *Cycle) removeLive(challenge string) {
	os.Remove(LivePath(c.Config.DataDir, challenge))
}
