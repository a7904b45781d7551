package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/internal/metrics"
	"github.com/kothd/kothd/publisher"
)

func runDaemon(ctx context.Context, cl *cli, args []string) error {
	// SIGHUP reloads the config (reload.go). Caught from the very start: its default
	// action would end the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	fs := cl.flags()
	var c common
	c.register(fs, true)
	allowOlder := fs.Bool("allow-older-board", false, "publish even over a published board of a later run (after losing the database)")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	// The daemon reports through the log (ticks, runs, publications, progress), not
	// progress lines on stdout.
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelInfo), io.Discard)
	if err != nil {
		return err
	}
	defer closeFn()
	cy.AllowOlderBoard = *allowOlder
	if cfg.Listen != "" {
		stop, err := serveMetrics(cfg.Listen, cy)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Under systemd (Type=notify): ready once the preflight passed and the schedules run,
	// the watchdog pinged while the daemon lives, stopping said at once on SIGTERM.
	reloads := make(chan cron.Reload)
	cy.Reloads = reloads
	r := &reloader{c: &c, cur: cy, reloads: reloads}
	cy.Ready = func() {
		sdNotify("READY=1\nSTATUS=scheduled; see kothd status")
		watchdog(ctx)
		go r.loop(ctx, hup) // a reload asked for before now is handled now
	}
	go func() {
		<-ctx.Done()
		sdNotify("STOPPING=1")
	}()
	return cron.Serve(ctx, cy)
}

// serveMetrics serves /metrics and /healthz on addr (the config's listen:) and has the
// cycle report to them. An address that cannot be taken stops the daemon at start: a host
// who asked to watch it must know.
func serveMetrics(addr string, cy *cron.Cycle) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	b := publisher.BuildStamp{Module: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b = publisher.BuildOf(bi)
	}
	m := metrics.New(b.Module, b.Revision, b.Go)
	watchQuota(m, cy.Source)
	cy.Watch = m
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	cy.Log.Info("serving metrics and health", "address", ln.Addr().String(), "metrics", "/metrics", "health", "/healthz")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
