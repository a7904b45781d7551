package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"kothd/config"
	"kothd/cron"
	"kothd/publisher"
	"kothd/runner"
	"kothd/scraper"
	"kothd/store"
)

// common are the flags every command shares.
type common struct {
	config   string
	snapshot string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "config.yaml", "configuration file")
	fs.StringVar(&c.snapshot, "snapshot", "", "replay a recorded API snapshot from this directory instead of the network")
}

// parse parses flags, turning -h into a clean exit.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	return nil
}

// cycle assembles the parts of a cycle from the config.
func (c *common) cycle(ctx context.Context, log *slog.Logger, out io.Writer) (*cron.Cycle, func(), error) {
	cfg, err := config.Load(c.config)
	if err != nil {
		return nil, nil, err
	}
	sb, err := openSandbox(cfg.Sandbox, log)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		return nil, nil, err
	}
	sinks := []publisher.Sink{publisher.Dir{Path: cfg.OutputDir}}
	if gh := cfg.GitHub; gh.Repo != "" {
		g, err := publisher.NewGitHub(gh.Owner, gh.Repo, gh.Branch, gh.Path, os.Getenv("GITHUB_TOKEN"), gh.BaseURL)
		if err != nil {
			st.Close()
			return nil, nil, err
		}
		g.Deadline, g.Log = gh.Deadline.D(publisher.DefaultGitHubDeadline), log
		sinks = append(sinks, g)
	}
	cy := &cron.Cycle{Config: cfg, Store: st, Source: c.source(cfg, log), Sandbox: sb, Sinks: sinks, Log: log, Out: out}
	return cy, func() { st.Close() }, nil
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

// openSandbox returns the configured sandbox; the runner refuses bwrap-less hosts unless
// the config says `sandbox: none`, which it logs loudly.
func openSandbox(kind string, log *slog.Logger) (runner.Sandbox, error) {
	return runner.NewSandbox(kind, log)
}
