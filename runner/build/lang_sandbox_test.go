package build

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"
)

// Every language of the shipped config.yaml builds and runs its hello-world bot in the
// real sandbox: the seccomp filter, the hidden /usr/local and pyenv versions, the bot's
// own uid. (TestLanguagesBuildAndRun runs them unsandboxed.) One at a time: the Go and
// Java builds take seconds of CPU each.
func TestLanguagesBuildAndRunInSandbox(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	langs := loadLanguages(t)
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	limits := sandbox.Limits{MemoryMB: 1024, Procs: 64}
	for _, key := range keys {
		lang := langs[key]
		t.Run(key, func(t *testing.T) {
			dir := copyBot(t, key)
			if log, err := Build(context.Background(), sb, nil, lang, dir, limits, 3*time.Minute); err != nil {
				t.Fatalf("build: %v\n%s", err, log)
			}
			argv := append(append([]string(nil), lang.Run...), echoArgs...)
			proc, err := sb.Command(context.Background(), sandbox.ProcSpec{Dir: dir, Argv: argv, Limits: limits})
			if err != nil {
				t.Fatal(err)
			}
			cmd := proc.Cmd
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			proc.Release()
			if want := strings.Join(echoArgs, " ") + "\n"; err != nil || string(out) != want {
				t.Errorf("bot printed %q (%v), want %q; stderr: %s", out, err, want, stderr.String())
			}
		})
	}
}
