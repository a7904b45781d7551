package cron

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/dirfiles"
	"github.com/kothd/kothd/runner/sandbox"
)

// An answer without `run` gets one that starts its language's run command.
func TestMafiaPrepareWritesRun(t *testing.T) {
	t.Parallel()
	env, a := adapterEnv(t, "mafia", "")
	dir := t.TempDir()
	src := "import os\nopen('to_server', 'w').write('say 4\\n' if os.path.exists('players') else '')\n"
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := a.Prepare(context.Background(), &env.Env, protocol.Submission{AnswerID: 1, Title: "Plain", Language: "python3", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	work, cleanup, err := scratch(env, a, "validate", entries)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if err := a.Validate(context.Background(), &env.Env, work[0]); err != nil {
		t.Fatal(err)
	}
	pool := dirfiles.NewDirPool(sandbox.Unsandboxed{}, dirfiles.DirConfig{}, []engine.Bot{{Entrant: engine.Entrant{Name: "Plain"}, Dir: dir}})
	defer pool.Close()
	if out, f := pool.Run(context.Background(), engine.At{}, 0, true); f != nil || out != "" {
		t.Errorf("generated run: %q, %v", out, f)
	}
	_ = pool.Setup(0, 0, []string{"Plain"})
	if out, f := pool.Run(context.Background(), engine.At{}, 0, true); f != nil || out != "say 4\n" {
		t.Errorf("generated run: %q, %v", out, f)
	}
	if _, err := a.Prepare(context.Background(), &env.Env, protocol.Submission{AnswerID: 2, Title: "X", Language: "cobol", Dir: dir}); err == nil {
		t.Error("an unknown language was accepted")
	}
}
