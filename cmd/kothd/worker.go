package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kothd/kothd/cluster"
	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/internal/metrics"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// runWorker plays the shards of the runs of a cluster's daemon (docs/cluster.md) until
// interrupted. It has no config file and no secrets: the NATS credentials come from the
// environment (KOTHD_NATS_TOKEN or KOTHD_NATS_CREDS), everything about a run from its jobs.
func runWorker(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	url := fs.String("nats", "", "`URL` of the cluster's NATS server (nats://host:4222, tls://host:4222)")
	data := fs.String("data", "", "`DIR` for this worker's bot copies, builds and scratch directories")
	python := fs.String("python", "", "interpreter for pyclass bots here (default: the daemon's)")
	sandboxKind := fs.String("sandbox", "bwrap", "sandbox: bwrap or none")
	cgroups := fs.String("cgroups", "required", "per-sandbox limits: required or off")
	name := fs.String("name", "", "the worker's `name` in status and logs (default host-pid)")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	if *url == "" || *data == "" {
		return usageErr("--nats and --data are required")
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	log := c.logger(cl.err, slog.LevelInfo)
	if *name == "" {
		host, _ := os.Hostname()
		*name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if _, err := cron.CleanWork(dir); err != nil {
		return err
	}
	cfg := &config.Config{DataDir: dir, Sandbox: *sandboxKind, Cgroups: *cgroups, Python: "/usr/bin/python3"}
	pyclass.SetFastCache(filepath.Join(dir, "pyfast"), log) // the harness's C loop, built here once
	sb, err := sandbox.NewSandboxCgroups(cfg.Sandbox, cfg.Cgroups, log)
	if err != nil {
		return err
	}
	nc, err := cluster.Connect(*url, "kothd worker "+*name)
	if err != nil {
		return err
	}
	defer nc.Close()
	w := &cluster.Worker{Name: *name, NC: nc, Config: cfg, Sandbox: sb, Log: log, Python: *python}
	return w.Run(ctx)
}

// The daemon's metrics count a cluster's shards (kothd_shards).
var _ cron.ShardWatcher = (*metrics.Metrics)(nil)
