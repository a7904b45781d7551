package cron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/scraper"
)

// Preflight proves the host can play before anything is fetched or played: a host's
// mistake (a missing interpreter, a toolchain not installed, a broken sandbox, an
// unwritable data directory) would otherwise be played as every entrant's failure and
// published. Every problem found is reported at once. RunSome runs it before each cycle
// (once, every daemon tick); Serve at start. Publication targets are not part of it: each
// is checked on its own (checkTargets), and one failing never stops play.
func (c *Cycle) Preflight(ctx context.Context) error {
	var errs []error
	if err := writable(c.Config.DataDir); err != nil {
		errs = append(errs, fmt.Errorf("data_dir: %w", err))
	}
	errs = append(errs, c.checkInterpreters(ctx)...)
	if c.Config.Sandbox != "none" && c.Config.Cgroups != sandbox.CgroupsOff {
		if err := sandbox.CheckCgroups(); err != nil { // computed once per process
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("preflight failed, nothing was played: %w", errors.Join(errs...))
	}
	return nil
}

// CleanPreflightDirs removes the scratch directories of preflights a killed kothd left in
// the temporary directory (os.TempDir()/kothd-preflight-*). One younger than ten minutes may
// be another kothd's check under way (a preflight lasts at most a minute) and stays.
func CleanPreflightDirs() (removed int) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "kothd-preflight-*"))
	for _, d := range dirs {
		if st, err := os.Lstat(d); err == nil && st.IsDir() && time.Since(st.ModTime()) > 10*time.Minute {
			if os.RemoveAll(d) == nil {
				removed++
			}
		}
	}
	return removed
}

// writable proves a directory exists (or can be made) and takes a file.
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".kothd-preflight-")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.Write([]byte("ok\n"))
	cerr := f.Close()
	os.Remove(name)
	if werr != nil {
		return fmt.Errorf("write to %s: %w", dir, werr)
	}
	return cerr
}

// pyChallenges are the configured challenges whose bots are Python classes.
func (c *Cycle) pyChallenges() []string {
	var out []string
	for _, ch := range c.Config.Challenges {
		if ch.Protocol == "pyclass" {
			out = append(out, ch.Name)
		}
	}
	return out
}

// checkInterpreters runs the configured Python inside the sandbox, as a bot's harness
// runs, and has it import the modules answers rely on (python_imports, default numpy);
// without Python-class challenges it runs `true`, which proves the sandbox alone.
func (c *Cycle) checkInterpreters(ctx context.Context) []error {
	argv := []string{"true"}
	what := "the sandbox"
	py := c.pyChallenges()
	if len(py) > 0 {
		imports := c.Config.PythonImports
		if imports == nil {
			imports = []string{"numpy"}
		}
		code := "import sys"
		for _, m := range imports {
			code += "; import " + m
		}
		argv = []string{c.Config.Python, "-c", code}
		what = fmt.Sprintf("python %s (for %s; imports %s)", c.Config.Python, strings.Join(py, ", "), strings.Join(append([]string{"sys"}, imports...), ", "))
		if _, err := os.Stat(c.Config.Python); err != nil {
			return []error{fmt.Errorf("%s: %w", what, err)}
		}
	}
	dir, err := os.MkdirTemp("", "kothd-preflight-")
	if err != nil {
		return []error{err}
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	proc, err := c.Sandbox.Command(ctx, sandbox.ProcSpec{Dir: dir, Argv: argv, Limits: sandbox.Limits{MemoryMB: 1024, Procs: 64}})
	if err != nil {
		return []error{fmt.Errorf("%s in sandbox %s: %w", what, c.Sandbox.Name(), err)}
	}
	// Its cgroup and bwrap's files go with the check, not whenever the collector runs.
	defer proc.Release()
	out, err := runWithin(ctx, proc.Cmd)
	if err != nil {
		return []error{fmt.Errorf("%s does not run in sandbox %s: %v: %s", what, c.Sandbox.Name(), err, lastLines(out, 3))}
	}
	return nil
}

// runWithin runs a prepared command, killing its process group if ctx ends first.
func runWithin(ctx context.Context, cmd *exec.Cmd) (string, error) {
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.String(), err
	case <-ctx.Done():
		sandbox.KillGroup(cmd)
		<-done
		return buf.String(), fmt.Errorf("no answer: %w", ctx.Err())
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// scriptTool finds the absolute paths of programs a shell script runs (/usr/local/go/bin/go,
// …/bin/javac): the toolchains a `sh -c` build command needs.
var scriptTool = regexp.MustCompile(`(?:^|[\s;&|(])(/[^\s'";&|()]*/bin/[^\s'";&|()]+)`)

// checkLanguages checks the toolchains of the languages a challenge's answers are written
// in, after the fetch and before anything is built: a language whose compiler is missing
// would fail every answer in it, as the answers' fault. Only languages in use are checked,
// so a host keeping Bank Heist without, say, a JDK is stopped only when an answer in Java
// comes, and only for that challenge (it used to be every language of the table, at start).
func (c *Cycle) checkLanguages(ch *config.Challenge, subs []scraper.Submission) error {
	if ch.Protocol != "argv" && ch.Protocol != "dirfiles" && ch.Protocol != "stdio" {
		return nil
	}
	inUse := map[string]bool{}
	for _, s := range subs {
		if s.Reject == "" && s.Language != "" {
			inUse[s.Language] = true
		}
	}
	if errs := checkToolchains(c.Config, inUse); len(errs) > 0 {
		return fmt.Errorf("host toolchains missing, nothing was built or played: %w", errors.Join(errs...))
	}
	return nil
}

// checkToolchains checks that the build and run commands of the languages in inUse name
// programs that exist. Programs inside the bot's directory (./bot) are made by the build
// and skipped.
func checkToolchains(cfg *config.Config, inUse map[string]bool) []error {
	var errs []error
	names := make([]string, 0, len(cfg.Languages))
	for n := range cfg.Languages {
		if inUse[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		l := cfg.Languages[name]
		var missing []string
		for _, argv := range [][]string{l.Build, l.Run} {
			for _, prog := range programs(argv) {
				if !found(prog) && !slices.Contains(missing, prog) {
					missing = append(missing, prog)
				}
			}
		}
		if len(missing) > 0 {
			errs = append(errs, fmt.Errorf("language %s: %s not found (install it, or remove the language from languages:)", name, strings.Join(missing, ", ")))
		}
	}
	return errs
}

// programs lists what a command runs: its program (past `env VAR=value`), and for a
// shell's -c script the absolute tool paths in it.
func programs(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	i := 0
	if filepath.Base(argv[0]) == "env" {
		out := []string{argv[0]}
		for i = 1; i < len(argv) && (strings.Contains(argv[i], "=") || strings.HasPrefix(argv[i], "-")); i++ {
		}
		if i < len(argv) {
			out = append(out, programs(argv[i:])...)
		}
		return out
	}
	out := []string{argv[0]}
	if base := filepath.Base(argv[0]); (base == "sh" || base == "bash" || base == "dash") && len(argv) > 2 && argv[1] == "-c" {
		for _, m := range scriptTool.FindAllStringSubmatch(argv[2], -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// found reports whether a program exists: an absolute path, a name on PATH, or a path
// relative to the bot's directory (made by the build, so not checked).
func found(prog string) bool {
	switch {
	case strings.HasPrefix(prog, "./") || (!filepath.IsAbs(prog) && strings.Contains(prog, "/")):
		return true
	case filepath.IsAbs(prog):
		st, err := os.Stat(prog)
		return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
	default:
		_, err := exec.LookPath(prog)
		return err == nil
	}
}
