package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kothd/kothd/publisher"
)

// guardBoard keeps a board from going backwards: before anything is published it reads
// the board already in the output directory, and refuses one of an older run than that.
// Run numbers only go up in one database, so an older number means this database is not
// the one that made the published board: a new or emptied file (deleted, zero length, a
// fresh data directory) or an older copy restored. Publishing would replace months of
// results with run 1's. Cycle.AllowOlderBoard (--allow-older-board) is the host's
// explicit yes; afterwards the published board is this database's and the check passes.
func (c *Cycle) guardBoard(b *publisher.Board) error {
	if c.AllowOlderBoard {
		return nil
	}
	path := filepath.Join(c.Config.OutputDir, b.Challenge+".json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the published board %s: %w", path, err)
	}
	var pub struct {
		Run struct {
			ID   int64     `json:"id"`
			Date time.Time `json:"date"`
		} `json:"run"`
		RunID int64     `json:"run_id"` // boards of earlier kothd versions
		Date  time.Time `json:"date"`
	}
	if err := json.Unmarshal(raw, &pub); err != nil {
		c.Log.Warn("published board unreadable; it will be replaced", "path", path, "err", err)
		return nil
	}
	if pub.Run.ID == 0 {
		pub.Run.ID, pub.Run.Date = pub.RunID, pub.Date
	}
	if pub.Run.ID > b.Run.ID {
		return fmt.Errorf("%s holds the board of run %d (%s), newer than this database's run %d: the database is new, "+
			"emptied or an older copy, not the one that made the published board. Nothing was published; restore the "+
			"database that played run %d, or pass --allow-older-board to replace the published board with this one",
			path, pub.Run.ID, pub.Run.Date.UTC().Format("2006-01-02 15:04 UTC"), b.Run.ID, pub.Run.ID)
	}
	return nil
}
