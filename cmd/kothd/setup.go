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
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
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
	pyclass.SetFastCache(filepath.Join(cfg.DataDir, "pyfast"), log)
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
	cy, err := c.configParts(cfg, log, out, st, sb, true)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	// The cluster (cluster:) plays the runs of games that can be sharded through workers;
	// bench and replay (noTargets) play here: they measure and explain this machine, and
	// must not take the port of a daemon's embedded server. It belongs to the process, as
	// the store does: a reload keeps it (cluster is a restart-only key).
	leave := func() {}
	if cfg.Cluster != nil && !c.noTargets {
		coord, err := cluster.Start(ctx, cfg, sb, log)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		cy.Cluster, leave = coord, coord.Close
		log.Info("cluster ready", "url", coord.URL, "local_worker", cfg.Cluster.Local())
	}
	return cy, func() { leave(); st.Close(); lock.Release() }, nil
}

// configParts makes a cycle of the host's parts (store, sandbox) and what the config makes
// of its own: the answers' source, the publication targets and the question editor. A
// reload (reload.go) makes a new one around the same host parts. repair finishes or undoes
// a publication to the output directory that a kill interrupted: at start, and on a reload
// to another directory only (a run still going may be publishing to the one it had).
func (c *common) configParts(cfg *config.Config, log *slog.Logger, out io.Writer, st *store.Store, sb sandbox.Sandbox, repair bool) (*cron.Cycle, error) {
	if c.noTargets {
		return &cron.Cycle{Config: cfg, Store: st, Source: c.stateful(c.source(cfg, log), st), Sandbox: sb, Log: log, Out: out}, nil
	}
	outDir := publisher.Dir{Path: cfg.OutputDir}
	if repair {
		if err := outDir.Repair(); err != nil {
			return nil, err
		}
	}
	sinks := []publisher.Sink{outDir}
	if gh := cfg.GitHub; gh.Repo != "" {
		g, err := publisher.NewGitHub(gh.Owner, gh.Repo, gh.Branch, gh.Path, os.Getenv("GITHUB_TOKEN"), gh.BaseURL)
		if err != nil {
			return nil, err
		}
		g.Deadline, g.Log = gh.Deadline.D(publisher.DefaultGitHubDeadline), log
		sinks = append(sinks, g)
	}
	cy := &cron.Cycle{Config: cfg, Store: st, Source: c.stateful(c.source(cfg, log), st), Sandbox: sb, Sinks: sinks, Log: log, Out: out}
	cy.Question = questionEditor(cfg, cy.Source, log)
	return cy, nil
}

// targetNames are the publication targets the config makes for a challenge, by the names
// their sinks record (Sink.Target), for what must know them without making the sinks
// (status has no token): the sinks, then the question's own table when the challenge keeps
// one (cron.QuestionTarget). A new kind of sink adds its name here as it adds itself to
// cycle.
func targetNames(cfg *config.Config, ch *config.Challenge) []string {
	out := []string{publisher.Dir{Path: cfg.OutputDir}.Target()}
	if gh := cfg.GitHub; gh.Repo != "" {
		out = append(out, publisher.GitHubTarget(gh.Owner, gh.Repo, gh.Branch, gh.Path))
	}
	if qb := ch.QuestionBoard; qb != nil && qb.Enabled {
		out = append(out, cron.QuestionTarget(cfg.Site, ch.QuestionID))
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

// stateful gives a live API client the store to keep the API's bans, backoffs and filter
// in across processes (scraper/state.go).
func (c *common) stateful(src scraper.Source, st *store.Store) scraper.Source {
	if cl, ok := src.(*scraper.Client); ok && st != nil {
		cl.State = st
	}
	return src
}

// apiClient is the live Stack Exchange API client the config describes.
func apiClient(cfg *config.Config, log *slog.Logger) *scraper.Client {
	c := scraper.New(cfg.APIBase, cfg.Site, cfg.APIKey)
	c.MinQuota = cfg.MinQuota
	c.Log = log
	return c
}
