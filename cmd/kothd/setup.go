package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kothd/kothd/cluster"
	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/sandbox"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// loadConfig reads the config and checks it against this build's engines, so a misspelt
// engine stops the command before anything is fetched.
func loadConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(knownEngines()); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkChallenge refuses a --challenge the config does not declare, listing the valid names.
func checkChallenge(cfg *config.Config, name string) error {
	if name == "" {
		return nil
	}
	_, err := cfg.Challenge(name)
	return err
}

// cycle assembles the parts of a cycle from the config.
func (c *common) cycle(ctx context.Context, cfg *config.Config, log *slog.Logger, out io.Writer) (_ *cron.Cycle, _ func(), err error) {
	setStopBound(cfg)
	lock, err := lockData(cfg) // one instance per data directory
	if err != nil {
		return nil, nil, err
	}
	defer releaseOnError(lock, &err)
	if n := cron.CleanPreflightDirs(); n > 0 {
		log.Info("removed preflight scratch directories a killed kothd left", "count", n)
	}
	if n, err := cron.CleanWork(cfg.DataDir); err != nil {
		return nil, nil, err
	} else if n > 0 {
		log.Info("removed work copies a previous process left", "count", n)
	}
	sandbox.SetBotUIDs(cfg.BotUIDFirst, cfg.BotUIDCount)
	sb, err := sandbox.NewSandboxCgroups(cfg.Sandbox, cfg.Cgroups, log) // refuses a host without bwrap or cgroups unless opted out
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		return nil, nil, err
	}
	if st.Migrated != "" {
		log.Warn("database schema upgraded; the database as it was is kept beside it", "backup", filepath.Join(cfg.DataDir, st.Migrated))
	}
	// The cluster (cluster:) plays the runs of games that can be sharded through workers;
	// bench and replay (noTargets) play here: they measure and explain this machine, and
	// must not take the port of a daemon's embedded server.
	var dist cron.Distributor
	leave := func() {}
	if cfg.Cluster != nil && !c.noTargets {
		coord, err := cluster.Start(ctx, cfg, sb, log)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		dist, leave = coord, coord.Close
		log.Info("cluster ready", "url", coord.URL, "local_worker", cfg.Cluster.Local())
	}
	if c.noTargets {
		cy := &cron.Cycle{Config: cfg, Store: st, Source: c.source(cfg, log), Sandbox: sb, Log: log, Out: out, Cluster: dist}
		return cy, func() { leave(); st.Close(); lock.Release() }, nil
	}
	outDir := publisher.Dir{Path: cfg.OutputDir}
	if err := outDir.Repair(); err != nil { // finish or undo a publication a kill interrupted
		leave()
		st.Close()
		return nil, nil, err
	}
	sinks := []publisher.Sink{outDir}
	if gh := cfg.GitHub; gh.Repo != "" {
		g, err := publisher.NewGitHub(gh.Owner, gh.Repo, gh.Branch, gh.Path, os.Getenv("GITHUB_TOKEN"), gh.BaseURL)
		if err != nil {
			leave()
			st.Close()
			return nil, nil, err
		}
		g.Deadline, g.Log = gh.Deadline.D(publisher.DefaultGitHubDeadline), log
		sinks = append(sinks, g)
	}
	cy := &cron.Cycle{Config: cfg, Store: st, Source: c.source(cfg, log), Sandbox: sb, Sinks: sinks, Log: log, Out: out, Cluster: dist}
	cy.Question = questionEditor(cfg, cy.Source, log)
	return cy, func() { leave(); st.Close(); lock.Release() }, nil
}

// targetNames are the publication targets the config makes, by the names their sinks
// record (Sink.Target), for what must know them without making the sinks (status has no
// token). A new kind of sink adds its name here as it adds itself to cycle.
func targetNames(cfg *config.Config) []string {
	out := []string{publisher.Dir{Path: cfg.OutputDir}.Target()}
	if gh := cfg.GitHub; gh.Repo != "" {
		out = append(out, publisher.GitHubTarget(gh.Owner, gh.Repo, gh.Branch, gh.Path))
	}
	return out
}

// source is the snapshot when one is named, else the live API.
func (c *common) source(cfg *config.Config, log *slog.Logger) scraper.Source {
	if c.snapshot != "" {
		return scraper.Snapshot{Dir: c.snapshot, Site: cfg.Site}
	}
	return apiClient(cfg, log)
}

// apiClient is the live Stack Exchange API client the config describes.
func apiClient(cfg *config.Config, log *slog.Logger) *scraper.Client {
	c := scraper.New(cfg.APIBase, cfg.Site, cfg.APIKey)
	c.MinQuota = cfg.MinQuota
	c.Log = log
	return c
}
