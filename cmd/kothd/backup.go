package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kothd/kothd/store"
)

// runBackup writes a consistent copy of the database to FILE while kothd may be running
// (SQLite's online backup API): it takes no lock and changes nothing.
func runBackup(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	pos, err := cl.parse(fs, args)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	st, err := store.OpenReadOnly(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(ctx, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(cl.out, "database %s backed up to %s\n", filepath.Join(cfg.DataDir, "kothd.db"), pos[0])
	return nil
}
