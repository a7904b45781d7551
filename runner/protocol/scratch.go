package protocol

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// Scratch copies the bots' directories into a fresh scratch directory for one use (a run,
// a validation, a replay): the one place that makes such copies. What bots write while
// they play (files they keep between decisions, or planted to change later runs) then
// never reaches the prepared directory that every later use starts from, so the same seed
// gives the same table. It returns the bots pointing at the copies and a function that
// removes them. Bots that share a directory (classes of one answer) share its copy; bots
// without one (bots the engine plays itself) keep none. A game that names its
// bots' directories (Game.DirNames: bots that learn their name from it) gets them so
// named. A bot that writes to its directory gets its copy on a filesystem of the
// challenge's disk_mb (sandbox.BotDir), and then reaches it by another path than root's.
func Scratch(env *Env, kind string, bots []engine.Bot, readOnly bool) ([]engine.Bot, func(), error) {
	var names []string
	if env.Game != nil && env.Game.DirNames != nil {
		names = env.Game.DirNames(engine.Entrants(bots))
	}
	base := filepath.Join(env.Config.DataDir, "work")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create work directory: %w", err)
	}
	root, err := os.MkdirTemp(base, kind+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("create work directory: %w", err)
	}
	// Bots that may write to their directory (readOnly false: Protocol.ReadOnlyDirs) get it
	// on a filesystem of disk_mb where the sandbox can make one.
	writable := !readOnly
	var lim sandbox.Limits // no challenge, no allowance: plain copies
	if env.Challenge != nil {
		lim = Limits(env)
	}
	var releases []func()
	cleanup := func() {
		for _, r := range releases {
			r()
		}
		_ = os.RemoveAll(root)
	}
	copies := map[string]string{}
	out := make([]engine.Bot, len(bots))
	for i, b := range bots {
		out[i] = b
		if b.Dir == "" {
			continue
		}
		dst, done := copies[b.Dir]
		if !done || names != nil {
			if names != nil {
				dst = filepath.Join(root, filepath.Base(filepath.Clean("/"+names[i])))
			} else {
				dst = filepath.Join(root, fmt.Sprintf("%d-%s", len(copies), filepath.Base(b.Dir)))
			}
			var err error
			if writable {
				var release func()
				dst, _, release, err = sandbox.BotDir(env.Sandbox, dst, b.Dir, lim)
				if release != nil {
					releases = append(releases, release)
				}
			} else {
				err = sandbox.CopyBotDir(dst, b.Dir)
			}
			if err != nil {
				cleanup()
				return nil, nil, fmt.Errorf("copy %s for the %s: %w", b.Name, kind, err)
			}
			copies[b.Dir] = dst
		}
		out[i].Dir = dst
	}
	return out, cleanup, nil
}
