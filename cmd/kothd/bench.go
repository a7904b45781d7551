package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/internal/machine"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/pyclass"
)

// benchFlags are kothd bench's choices besides the common flags.
type benchFlags struct {
	games      int // 0: each challenge's own number
	seed       uint64
	sequential bool // also play with concurrency 1 and compare
	yardstick  bool // play the game's yardstick too, when it has one
	// yardWorkers is the worker processes of a yardstick whose original controller played
	// its games in several (forty's, Pool(4) by default); 1: one game at a time, one core.
	yardWorkers int
	options     optionFlags
}

// machineSizes are the sizes of bench --machine's probe (tests make them small).
var machineSizes = machine.Default

// runBench plays challenges in a scratch data directory (the host's store and leaderboards
// are untouched) and reports, for each, what docs/benchmarks.md explains: games/s,
// decisions/s, CPU per decision of kothd and of the bots, kothd's peak RSS, and for the
// games that have one the yardstick (the original controllers' way of playing) with the
// ratio. It reads a snapshot, or the live API only when told so. --machine first measures
// what the machine charges for system calls, page faults, pipes and launches (package
// machine); alone, that is all it does.
func runBench(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, true)
	live := fs.Bool("live", false, "fetch the answers from the live API (costs API quota) instead of --snapshot")
	challenge := fs.String("challenge", "", "challenge to play, as the arguments name them (default: the config's only challenge)")
	var games positive
	fs.Var(&games, "games", "`number` of games to play (default: each challenge's configured number)")
	var seed optSeed
	fs.Var(&seed, "seed", "master `seed` (default 1)")
	sequential := fs.Bool("sequential", false, "play each challenge a second time with concurrency 1 and print the ratio")
	var options optionFlags
	fs.Var(&options, "option", "override the challenge's option `KEY=VALUE` for this bench (repeatable), e.g. games_per_tournament=50")
	noYard := fs.Bool("no-yardstick", false, "skip the games' yardsticks")
	var yardWorkers positive
	fs.Var(&yardWorkers, "yardstick-workers", "play the forty yardstick in `N` worker processes sharing the games, as the original controller did (its -t, 4 by default; default 1: one game at a time on one core)")
	probe := fs.Bool("machine", false, "first measure what this machine charges for a system call, a page fault, a pipe round trip, a launch, a Python start (alone: only that)")
	asJSON := fs.Bool("json", false, "print the results as JSON instead of text: an array of challenges, or with --machine an object {machine, challenges}")
	verbose := fs.Bool("v", false, "print the cycle's progress")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of kothd's own process over the games (not fetching, building, validating, nor the yardstick) to `FILE`, for go tool pprof; with several challenges, FILE.<challenge>")
	pos, err := cl.parse(fs, args)
	if err != nil {
		return err
	}
	machineOnly := *probe && len(pos) == 0 && *challenge == ""
	switch {
	case machineOnly:
	case c.snapshot == "" && !*live:
		return usageErr("bench needs --snapshot DIR, or --live to fetch the answers from the live API")
	case c.snapshot != "" && *live:
		return usageErr("--snapshot and --live exclude each other")
	}
	if !seed.set {
		seed = optSeed{set: true, v: 1}
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	var m *machine.Report
	if *probe {
		if m, err = machine.Probe(ctx, cfg.Python, machineSizes); err != nil {
			return fmt.Errorf("machine: %w", err)
		}
		if !*asJSON {
			m.Print(cl.out)
		}
		if machineOnly {
			return printBenchJSON(cl.out, *asJSON, m, nil)
		}
	}
	names, err := benchChallenges(cfg, pos, *challenge)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "kothd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	var out io.Writer = io.Discard
	if *verbose {
		out = cl.err
	}
	// The bench uses its own store and output directory, not the host's: the host's boards
	// (the board guard reads them) and publication targets play no part.
	// The C loop's builds stay in the host's data directory (built once per interpreter).
	pyclass.SetFastCache(filepath.Join(cfg.DataDir, "pyfast"), nil)
	cfg.DataDir, cfg.OutputDir = filepath.Join(scratch, "data"), filepath.Join(scratch, "out")
	c.noTargets = true
	cy, closeFn, err := c.cycle(ctx, cfg, c.logger(cl.err, slog.LevelWarn), out)
	if err != nil {
		return err
	}
	defer closeFn()
	cy.Sinks = []publisher.Sink{publisher.Dir{Path: cfg.OutputDir}}
	b := &bencher{cy: cy, cfg: cfg, flags: benchFlags{games: int(games), seed: seed.v, sequential: *sequential, yardstick: !*noYard, yardWorkers: max(int(yardWorkers), 1), options: options}, profile: *cpuProfile, several: len(names) > 1}
	cy.Meter = b.meter
	// The pyclass harnesses tell where their time went (the split of the bots' CPU).
	pyclass.MeasureHarnesses(pyclass.StatsEvery)
	var results []*benchResult
	var errs []error
	for _, name := range names {
		res, err := b.bench(ctx, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			if ctx.Err() != nil {
				break
			}
		}
		if res == nil {
			continue
		}
		results = append(results, res)
		if !*asJSON {
			res.print(cl.out)
		}
	}
	if err := printBenchJSON(cl.out, *asJSON, m, results); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// printBenchJSON prints the results as JSON when asked: the array of challenges, or with
// the machine's report an object holding both.
func printBenchJSON(w io.Writer, asJSON bool, m *machine.Report, results []*benchResult) error {
	if !asJSON {
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if m == nil {
		return enc.Encode(results)
	}
	return enc.Encode(struct {
		Machine    *machine.Report `json:"machine"`
		Challenges []*benchResult  `json:"challenges,omitempty"`
	}{m, results})
}

// benchChallenges are the challenges to play: the arguments and --challenge, "all" for
// every challenge of the config; when none is named, the config's only challenge (a bench
// of every challenge can take an hour, so several are never chosen for the host).
func benchChallenges(cfg *config.Config, args []string, flag string) ([]string, error) {
	names := slices.Clone(args)
	if flag != "" {
		names = append(names, flag)
	}
	if len(names) == 0 {
		all := cfg.Names()
		if len(all) != 1 {
			return nil, fmt.Errorf("name the challenges to bench, or all (the challenges are: %s)", strings.Join(all, ", "))
		}
		names = all
	}
	if slices.Contains(names, "all") {
		return cfg.Names(), nil
	}
	for _, n := range names {
		if err := checkChallenge(cfg, n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// bencher plays the challenges of one kothd bench.
type bencher struct {
	cy    *cron.Cycle
	cfg   *config.Config
	flags benchFlags
	last  *playMeasure // the measure of the last run played
	// profile names the file of --cpuprofile ("": none); several says that each
	// challenge's profile goes to profile.<challenge>.
	profile string
	several bool
}

// meter is the cycle's Meter: it measures each run's games.
func (b *bencher) meter(challenge string) cron.Metering {
	b.last = nil
	endProfile := b.startProfile(challenge)
	loaded, stop := startMeasure()
	return cron.Metering{Loaded: loaded, Done: func(stats []*protocol.Stats) {
		m := stop(stats)
		endProfile()
		b.last = &m
	}}
}

// startProfile starts --cpuprofile's profile of one run's games and returns what ends
// it. A file that cannot be written is said on stderr and the bench goes on unprofiled.
func (b *bencher) startProfile(challenge string) func() {
	if b.profile == "" {
		return func() {}
	}
	path := b.profile
	if b.several {
		path += "." + challenge
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kothd bench: --cpuprofile: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "kothd bench: --cpuprofile: %v\n", err)
		}
	}
}

// bench plays one challenge (twice with --sequential), then its yardstick.
func (b *bencher) bench(ctx context.Context, name string) (*benchResult, error) {
	ch, err := b.cfg.Challenge(name)
	if err != nil {
		return nil, err
	}
	g, err := all.Games().Lookup(ch.Engine)
	if err != nil {
		return nil, err
	}
	if err := overrideOptions(&ch.Options, b.flags.options); err != nil {
		return nil, err
	}
	if _, err := g.DecodeOptions(&ch.Options); err != nil {
		return nil, err
	}
	res, err := b.play(ctx, ch, 0)
	if err != nil {
		return nil, err
	}
	res.Engine, res.Protocol = g.Name, string(g.Protocol)
	if b.flags.sequential {
		seq, err := b.play(ctx, ch, 1)
		if err != nil {
			return res, fmt.Errorf("sequential run: %w", err)
		}
		res.Sequential = &sequentialResult{Concurrency: 1, GamesPerSec: seq.GamesPerSec, Seconds: seq.Seconds, Ratio: res.GamesPerSec / seq.GamesPerSec}
	}
	if b.flags.yardstick && hasYardstick(g) {
		bots, err := b.cy.Store.RunBots(ctx, res.RunID)
		if err != nil {
			return res, err
		}
		opts, err := g.DecodeOptions(&ch.Options)
		if err != nil {
			return res, err
		}
		y, err := runYardstick(ctx, b.cfg.Python, g, bots, res.Games, res.Seed, opts, b.flags.yardWorkers)
		if err != nil {
			return res, err
		}
		res.setYardstick(y)
	}
	return res, nil
}

// play plays one run of ch with the given concurrency (0: the challenge's) and returns
// its measures.
func (b *bencher) play(ctx context.Context, ch *config.Challenge, concurrency int) (*benchResult, error) {
	if concurrency > 0 {
		old := ch.Concurrency
		ch.Concurrency = concurrency
		defer func() { ch.Concurrency = old }()
	}
	seed := b.flags.seed
	reps, err := b.cy.RunAll(ctx, ch.Name, cron.Options{Seed: &seed, Games: b.flags.games, Force: true})
	if err != nil {
		return nil, err
	}
	if len(reps) != 1 || reps[0].RunID == 0 {
		why := "no report"
		if len(reps) == 1 {
			why = reps[0].Skipped
		}
		return nil, fmt.Errorf("nothing played: %s", why)
	}
	if b.last == nil {
		return nil, fmt.Errorf("run %d was not measured", reps[0].RunID)
	}
	r := reps[0]
	res := newBenchResult(r, *b.last, b.cy.Sandbox.Name())
	if res.Sides != nil { // which batch loop the harnesses ran (pyclass/pyfast.go)
		res.Sides.Loop = pyclass.FastHarness(b.cfg.Python, b.cfg.PythonFast != nil && !*b.cfg.PythonFast)
	}
	bots, err := b.cy.Store.RunBots(ctx, r.RunID)
	if err != nil {
		return nil, err
	}
	res.Bots = len(bots) // built-in bots too (the report's Entered counts answers' bots)
	if run, err := b.cy.Store.GetRun(ctx, r.RunID); err == nil && run != nil {
		res.Concurrency = run.Concurrency // what the run finished with (cron/crowd.go)
	}
	res.Answers = answerShares(bots, *b.last)
	return res, nil
}
