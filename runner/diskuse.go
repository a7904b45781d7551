package runner

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"kothd/engine"
)

// overDisk is an output-limit fault when the bot's directory holds more than
// spec.Limits.DirMB, else nil. Bots write there with the host's disk underneath; without
// this a bot could fill it with many files, each under the per-file limit.
func overDisk(spec ProcSpec) *engine.Fault {
	if spec.Limits.DirMB <= 0 {
		return nil
	}
	limit := int64(spec.Limits.DirMB) << 20
	if n := dirBytes(spec.Dir, limit); n > limit {
		return &engine.Fault{Outcome: engine.OutputLimit, Detail: fmt.Sprintf("its directory holds more than the %d MB allowed", spec.Limits.DirMB)}
	}
	return nil
}

// dirBytes adds up the sizes of the regular files under dir, without following links,
// stopping once the total passes stop.
func dirBytes(dir string, stop int64) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += info.Size()
		}
		if n > stop {
			return filepath.SkipAll
		}
		return nil
	})
	return n
}
