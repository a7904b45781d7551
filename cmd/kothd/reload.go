package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/internal/metrics"
	"github.com/kothd/kothd/scraper"
)

// The daemon's reload (SIGHUP; the unit's ExecReload sends it): the config is read and
// checked again as at start, and its preflight run. A config with mistakes is refused,
// each mistake logged, and the daemon goes on with the one it had; a good one is handed
// to cron.Serve, which puts it in force between cycles (cron/reload.go). systemd is told
// RELOADING=1 (with the MONOTONIC_USEC that Type=notify-reload wants) at the start and
// READY=1 at the end, whatever the outcome: the daemon is running either way.

// reloader reloads the daemon's config on each signal of hup until ctx ends.
type reloader struct {
	c       *common
	cur     *cron.Cycle // the cycle in force
	reloads chan<- cron.Reload
}

func (r *reloader) loop(ctx context.Context, hup <-chan os.Signal) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		sdNotify(fmt.Sprintf("RELOADING=1\nMONOTONIC_USEC=%d\nSTATUS=reloading %s", monotonicUsec(), r.c.config))
		status := "reloaded " + r.c.config
		if err := r.reload(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			log := r.cur.Log
			mistakes := strings.Split(strings.TrimSpace(err.Error()), "\n")
			for _, m := range mistakes {
				log.Error("reload: "+strings.TrimSpace(m), "config", r.c.config)
			}
			log.Error("reload refused; the daemon goes on with the config it had", "config", r.c.config, "mistakes", len(mistakes))
			status = fmt.Sprintf("reload refused (%d mistakes; see the journal); running on the config it had", len(mistakes))
		}
		sdNotify("READY=1\nSTATUS=" + status)
	}
}

// reload reads, checks and offers the config; nil once the new one is in force (or it
// changed nothing).
func (r *reloader) reload(ctx context.Context) error {
	old := r.cur
	log := old.Log
	log.Info("reload requested; reading the config again", "config", r.c.config)
	cfg, err := loadConfig(r.c.config)
	if err != nil {
		return err
	}
	if keys := cron.RestartOnlyChanges(old.Config, cfg); len(keys) > 0 {
		return fmt.Errorf("%s changed: that takes a restart (systemctl restart kothd)", strings.Join(keys, ", "))
	}
	changes := config.Changes(old.Config, cfg)
	if len(changes) == 0 {
		log.Info("reload: the config is unchanged; nothing to do", "config", r.c.config)
		return nil
	}
	next, err := r.c.configParts(cfg, log, io.Discard, old.Store, old.Sandbox, cfg.OutputDir != old.Config.OutputDir)
	if err != nil {
		return err
	}
	next.AllowOlderBoard, next.ProgressLog, next.Watch, next.Cluster = old.AllowOlderBoard, old.ProgressLog, old.Watch, old.Cluster
	if err := next.Preflight(ctx); err != nil {
		return err
	}
	done := make(chan error, 1)
	select {
	case r.reloads <- cron.Reload{Cycle: next, Done: done}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err = <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	r.cur = next
	if m, ok := next.Watch.(*metrics.Metrics); ok {
		watchQuota(m, next.Source)
	}
	log.Info("config reloaded; runs in progress finish with the config they started with", "config", r.c.config, "changed", changes)
	return nil
}

// watchQuota has the metrics read the API's quota from src, when it is the live API.
func watchQuota(m *metrics.Metrics, src scraper.Source) {
	if api, ok := src.(*scraper.Client); ok {
		m.SetQuota(func() (int, bool) { q := api.Quota(); return q.Remaining, !q.At.IsZero() })
	}
}

// monotonicUsec is CLOCK_MONOTONIC in microseconds, which systemd (≥ 253, Type=
// notify-reload) matches against the time it sent SIGHUP.
func monotonicUsec() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano() / 1000
}
