package cron

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/scraper"
	"github.com/kothd/kothd/store"
)

// testCycle is a cycle over the repository's config writing into dir, with the real store
// and sandbox, for the in-package tests (the scheduler's, the adapters'). It is the twin of
// crontest.NewCycle, which the package's external tests and every game's cycle tests use:
// crontest imports cron, so tests inside cron cannot import it.
func testCycle(t testing.TB, dir string) *Cycle {
	t.Helper()
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = filepath.Join(dir, "data")
	cfg.OutputDir = filepath.Join(dir, "out")
	st, err := store.Open(context.Background(), filepath.Join(cfg.DataDir, "kothd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Cycle{Config: cfg, Store: st, Sandbox: testSandbox(t), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Out: io.Discard}
}

// testSandbox is the real bwrap sandbox (crontest.Sandbox's twin, for the same reason).
// KOTHD_NO_BWRAP=1 opts out explicitly on a machine without user namespaces.
func testSandbox(t testing.TB) sandbox.Sandbox {
	t.Helper()
	if os.Getenv("KOTHD_NO_BWRAP") == "1" {
		return sandbox.Unsandboxed{}
	}
	sb, err := sandbox.NewSandbox("bwrap", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("sandbox: %v (set KOTHD_NO_BWRAP=1 to run these tests unsandboxed)", err)
	}
	return sb
}

// adapterEnv is a play environment for one challenge of the repository's config, with the
// given engine options (YAML), a scratch data directory and the real sandbox, and the
// adapter of its game's protocol.
func adapterEnv(t testing.TB, challenge, options string) (*PlayEnv, protocol.Protocol) {
	t.Helper()
	cy := testCycle(t, t.TempDir())
	ch, err := cy.Config.Challenge(challenge)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(options), &ch.Options); err != nil {
		t.Fatal(err)
	}
	env, a, err := cy.newEnv(ch)
	if err != nil {
		t.Fatal(err)
	}
	return env, a
}

// enterSnapshot takes a bundled snapshot's answers through what a cycle does before play
// (extraction, materialisation, Prepare, Validate in a scratch copy) and appends the bots
// that enter to env.Bots. It returns the refused answers with their reasons.
func enterSnapshot(t testing.TB, env *PlayEnv, a protocol.Protocol, questionID int64) map[int64]string {
	t.Helper()
	ctx := context.Background()
	answers, err := scraper.Snapshot{Dir: "../testdata/snapshot", Site: "codegolf"}.Answers(ctx, questionID)
	if err != nil {
		t.Fatal(err)
	}
	cy := &Cycle{Config: env.Config}
	refused := map[int64]string{}
	for _, s := range scraper.ExtractAll(answers, scraper.RulesFromConfig(env.Config, env.Challenge)) {
		if s.Reject != "" {
			refused[s.AnswerID] = s.Reject
			continue
		}
		dir, err := cy.materialise(env, s)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := a.Prepare(ctx, &env.Env, protocol.Submission{AnswerID: s.AnswerID, Author: s.Author, Title: s.Title, Language: s.Language, Dir: dir})
		for _, e := range entries {
			if err != nil {
				break
			}
			work, cleanup, cerr := scratch(env, a, "validate", []engine.Bot{e})
			if cerr != nil {
				t.Fatal(cerr)
			}
			err = a.Validate(ctx, &env.Env, work[0])
			cleanup()
		}
		if err != nil {
			refused[s.AnswerID] = err.Error()
			continue
		}
		env.Bots = append(env.Bots, entries...)
	}
	return refused
}

// needLanguage skips a test when the interpreter the config names for a language is not
// installed on this machine (the snapshot's answers in it could not run).
func needLanguage(t testing.TB, env *PlayEnv, lang string) {
	t.Helper()
	l, ok := env.Config.Languages[lang]
	if !ok || len(l.Run) == 0 {
		t.Fatalf("no language %q in the config", lang)
	}
	if _, err := os.Stat(l.Run[0]); err != nil {
		t.Skipf("%s (%s) is not installed here", lang, l.Run[0])
	}
}
