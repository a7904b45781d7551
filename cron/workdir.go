package cron

import (
	"fmt"
	"os"
	"path/filepath"
)

// CleanWork removes the scratch copies a killed process left in dataDir/work (a run's
// copies are removed when it ends, but not by SIGKILL or a crash). Call it only while
// holding the data directory's lock, before any cycle starts: at that moment no copy
// there is in use. It returns how many it removed.
func CleanWork(dataDir string) (int, error) {
	base := filepath.Join(dataDir, "work")
	ents, err := os.ReadDir(base)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("clean work copies: %w", err)
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(base, e.Name())); err != nil {
			return 0, fmt.Errorf("clean work copies: %w", err)
		}
	}
	return len(ents), nil
}
