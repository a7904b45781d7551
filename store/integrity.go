package store

import (
	"context"
	"fmt"
	"strings"
)

// checkIntegrity refuses a damaged database before anything reads from it: a file with
// garbage pages would otherwise be used and a wrong board published from it. quick_check
// reads every page (it skips only the index-content comparison of integrity_check), which
// for kothd's few megabytes takes milliseconds.
func (s *Store) checkIntegrity(ctx context.Context, path string) error {
	damaged := func(why string) error {
		return fmt.Errorf("database %s is damaged (%s); kothd will not use it or publish from it: "+
			"restore it from a backup, or move it away to start afresh (a fresh database will not overwrite "+
			"published boards of later runs unless told to with --allow-older-board)", path, why)
	}
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		return damaged(err.Error())
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return damaged(err.Error())
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return damaged(err.Error())
	}
	if len(problems) > 0 {
		return damaged(strings.Join(problems, "; "))
	}
	return nil
}
