package cron

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/internal/names"
	"github.com/kothd/kothd/publisher"
	"github.com/kothd/kothd/runner/build"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/scraper"
)

// prepare materialises every accepted submission, lets the game's protocol turn it into
// bots, and settles name clashes and exclusions. env.Bots ends up in tournament order:
// built-in bots first, then answers oldest first.
func (c *Cycle) prepare(ctx context.Context, env *PlayEnv, a protocol.Protocol, subs []scraper.Submission, rep *Report) error {
	// Failed builds and class listings are remembered: not redone for unchanged answers.
	env.Memo = c.Store
	builtins, err := a.Builtins(ctx, &env.Env)
	if err != nil {
		return fmt.Errorf("prepare built-in bots: %w", err)
	}
	env.Bots = append(env.Bots, builtins...)
	var taken names.Claims // one comparison for every name: as people see them
	cp, err := capsOf(env.Challenge)
	if err != nil {
		return err
	}
	for _, b := range builtins {
		taken.Claim(b.Name, "a built-in bot")
	}
	sorted := slices.Clone(subs)
	slices.SortStableFunc(sorted, func(x, y scraper.Submission) int {
		if x.Created != y.Created {
			return int(x.Created - y.Created)
		}
		return int(x.AnswerID - y.AnswerID)
	})
	reject := func(s scraper.Submission, name, status, reason string) {
		// Bounded: the words are the answer's (a heading, a crash's message) and go to the
		// store and on the board.
		name, reason = shownName(name), mdtext.Cut(reason, reasonMax)
		rep.Rejected = append(rep.Rejected, publisher.Rejected{AnswerID: s.AnswerID, Author: mdtext.Cut(s.Author, authorMax), Name: name, Status: status, Reason: reason})
		if err := c.Store.SetBotStatus(ctx, env.Challenge.Name, s.AnswerID, name, status, reason); err != nil {
			c.Log.Error("record bot status", "err", err)
		}
		// On a terminal, or in a log file: the answer's words inert, on one line.
		c.printf("  rejected answer %d (%s by %s): %s: %s\n", s.AnswerID, cmp.Or(mdtext.Terminal(name), "—"), mdtext.Terminal(s.Author), status, mdtext.Terminal(reason))
	}
	// Preparing and validating means starting bot processes: do it for several answers at
	// once, then settle names in answer order so the outcome does not depend on timing.
	prepared := make([]preparedSub, len(sorted))
	sem := make(chan struct{}, prepareWorkers)
	var wg sync.WaitGroup
	inUse := map[string]bool{} // this cycle's bot directories: never evicted from the build cache
	for i, s := range sorted {
		if s.Reject != "" {
			continue
		}
		dir, err := c.materialise(env, s)
		if err != nil {
			return err // the data directory is broken: nothing else will work either
		}
		inUse[dir] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			prepared[i] = c.prepareOne(ctx, env, a, s, dir)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.boundBuildCache(env, inUse)
	byAuthor := map[string]int{} // bots entered per account (limits.bots_per_author)
	for i, s := range sorted {
		if s.Reject != "" {
			reject(s, s.Title, "rejected", s.Reject)
			continue
		}
		p := prepared[i]
		if p.hostErr != nil {
			return p.hostErr
		}
		if p.err != nil {
			reject(s, s.Title, failedStatus(p.err), p.err.Error())
			continue
		}
		entries := p.entries
		overName, overReason, over := cp.overCap(entries)
		if over {
			entries = entries[:cp.classesPerAnswer] // the rest: one record, below
		}
		for k, e := range entries {
			if err := cp.admit(k, e.Name); err != nil {
				reject(s, shownName(e.Name), "rejected", err.Error())
				continue
			}
			if reason := taken.Clash(e.Name); reason != "" {
				reject(s, e.Name, "rejected", reason)
				continue
			}
			if names.Listed(env.Challenge.Exclude, e.Name) {
				reject(s, e.Name, "excluded", "excluded by the host")
				continue
			}
			if err := p.invalid[k]; err != nil {
				reject(s, e.Name, "failed validation", err.Error())
				continue
			}
			if err := cp.roomFor(len(env.Bots) - len(builtins)); err != nil {
				reject(s, e.Name, "rejected", err.Error())
				continue
			}
			author := authorKey(s)
			if err := cp.authorRoom(byAuthor[author]); err != nil {
				reject(s, e.Name, "rejected", err.Error())
				continue
			}
			byAuthor[author]++
			taken.Claim(e.Name, fmt.Sprintf("answer %d by %s", s.AnswerID, s.Author))
			env.Bots = append(env.Bots, e)
			rep.Entered++
			if err := c.Store.SetBotStatus(ctx, env.Challenge.Name, s.AnswerID, e.Name, "ok", ""); err != nil {
				c.Log.Error("record bot status", "err", err)
			}
		}
		if over {
			reject(s, overName, "rejected", overReason)
		}
	}
	c.printf("%s: %d bots entered (%d built in), %d not entered\n", env.Challenge.Name, len(env.Bots), len(builtins), len(rep.Rejected))
	return nil
}

// prepareWorkers bounds the answers prepared at once (each starts bot processes).
const prepareWorkers = 4

// preparedSub is what preparing one submission gave.
type preparedSub struct {
	entries []engine.Bot
	invalid []error // per entry: why it failed validation, or nil
	err     error   // the submission yields no bots, with the reason
	hostErr error   // the host failed (sandbox, disk): the cycle must stop
}

func (c *Cycle) prepareOne(ctx context.Context, env *PlayEnv, a protocol.Protocol, s scraper.Submission, dir string) preparedSub {
	var p preparedSub
	entries, err := a.Prepare(ctx, &env.Env, protocol.Submission{AnswerID: s.AnswerID, Author: s.Author, Title: s.Title, Heading: s.HeadingText, Language: s.Language, Dir: dir})
	if err != nil {
		if isHostFault(err) {
			p.hostErr = fmt.Errorf("prepare answer %d: %w", s.AnswerID, err)
		}
		p.err = err
		return p
	}
	p.entries = entries
	p.invalid = make([]error, len(entries))
	cp, _ := capsOf(env.Challenge) // checked by prepare
	for k, e := range entries {
		if names.Listed(env.Challenge.Exclude, e.Name) || cp.admit(k, e.Name) != nil {
			continue // not entered: nothing of it is started
		}
		if err := c.validate(ctx, env, a, s, e); err != nil {
			if isHostFault(err) {
				p.hostErr = fmt.Errorf("validate %s of answer %d: %w", e.Name, s.AnswerID, err)
			}
			p.invalid[k] = err
		}
	}
	return p
}

// failedStatus is the status of a submission that yields no bots.
func failedStatus(err error) string {
	var b *build.BuildError
	if errors.As(err, &b) {
		return "failed build"
	}
	return "failed validation"
}

func isHostFault(err error) bool {
	var f *engine.Fault
	return errors.As(err, &f) && f.Outcome == engine.HostFault
}

// materialise writes a submission's files into its own directory under the data directory,
// keyed by answer id and content hash: an unchanged answer reuses its directory (and
// whatever was built there), an edited one gets a fresh directory.
func (c *Cycle) materialise(env *PlayEnv, s scraper.Submission) (string, error) {
	dir := filepath.Join(c.Config.DataDir, "bots", env.Challenge.Name, fmt.Sprintf("%d-%s", s.AnswerID, scraper.HashFiles(s.Files)[:12]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create bot directory: %w", err)
	}
	// Its last use, for the build cache's bound (buildcache.go).
	now := time.Now()
	if err := os.Chtimes(dir, now, now); err != nil {
		return "", fmt.Errorf("bot directory: %w", err)
	}
	for _, f := range s.Files {
		name := filepath.Base(filepath.Clean("/" + f.Name)) // the scraper sanitises; this is belt and braces
		if name == "/" || name == "." {
			continue
		}
		mode := os.FileMode(0o644)
		if f.Exec { // a script with a #! line, Mafia's run
			mode = 0o755
		}
		// Bots run in this directory and can leave links where their files were: write
		// without following them (we may be root), whatever is there.
		if err := sandbox.WriteBotFile(dir, name, []byte(f.Content), mode); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// boundBuildCache bounds the challenge's build cache (buildcache.go) once its bots are
// prepared. A failure costs disk space, not the run: it is logged.
func (c *Cycle) boundBuildCache(env *PlayEnv, inUse map[string]bool) {
	root := filepath.Join(c.Config.DataDir, "bots", env.Challenge.Name)
	bound := int64(cmp.Or(env.Challenge.Limits.BuildCacheMB, DefaultBuildCacheMB)) << 20
	evicted, total, err := boundBuildCache(root, inUse, bound)
	for _, p := range evicted {
		c.Log.Info("build cache: evicted a bot directory no current answer uses", "challenge", env.Challenge.Name, "dir", filepath.Base(p))
	}
	if len(evicted) > 0 {
		c.printf("%s: build cache: %d unused bot directories evicted, %d MiB kept (limits.build_cache_mb: %d MiB)\n",
			env.Challenge.Name, len(evicted), total>>20, bound>>20)
	}
	if err != nil {
		c.Log.Error("build cache not bounded", "challenge", env.Challenge.Name, "err", err)
	}
}

// validate runs the game's validation for a bot not validated before in this
// revision of its answer.
func (c *Cycle) validate(ctx context.Context, env *PlayEnv, a protocol.Protocol, s scraper.Submission, e engine.Bot) error {
	if status, _ := c.Store.BotStatus(ctx, env.Challenge.Name, s.AnswerID, e.Name); status == "ok" {
		return nil
	}
	return validateBot(ctx, env, a, e)
}
