package pyclass

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/store"
)

// An unchanged answer's classes are listed once: its import-time code (here a sleep, and a
// line appended to a host file that counts executions; unsandboxed so the count is
// visible) runs once however often the listing is asked for, across a restart too. Its
// error is remembered the same way. A changed answer, or a changed harness, is listed
// again; without a memo every listing runs the code.
func TestListClassesRemembered(t *testing.T) {
	t.Parallel()
	dbPath := filepath.Join(t.TempDir(), "kothd.db")
	st := openTestStore(t, dbPath)
	count := filepath.Join(t.TempDir(), "executions")
	executions := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "\n")
	}
	dir := t.TempDir()
	answer := func(tail string) {
		code := "import time\nopen(" + pyQuote(count) + ", 'a').write('x\\n')\ntime.sleep(1)\n" + tail
		writeTestFile(t, dir, "bot.py", code)
		if err := InstallTestHarness(dir); err != nil {
			t.Fatal(err)
		}
	}
	slow := "class Slow(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n"
	answer(slow)
	cfg := PyConfig{Harness: "forty", Python: "/usr/bin/python3", StartTimeout: 20 * time.Second, Memo: st}
	list := func(cfg PyConfig) ([]string, error) {
		return ListClasses(context.Background(), sandbox.Unsandboxed{}, cfg, dir)
	}
	for i := 0; i < 3; i++ {
		if i == 2 { // a restart
			st.Close()
			st = openTestStore(t, dbPath)
			cfg.Memo = st
		}
		classes, err := list(cfg)
		if err != nil || !reflect.DeepEqual(classes, []string{"Slow"}) {
			t.Fatalf("listing %d: %v, %v", i+1, classes, err)
		}
		if executions() != 1 {
			t.Fatalf("listing %d: the answer's code ran %d times, want once", i+1, executions())
		}
	}

	// A changed answer is listed again; its error is remembered, with the same outcome.
	answer(slow + "raise ValueError('boom at import')\n")
	var first error
	for i := 0; i < 2; i++ {
		_, err := list(cfg)
		var f *engine.Fault
		if !errors.As(err, &f) || f.Outcome != engine.Crash || !strings.Contains(f.Detail, "boom at import") {
			t.Fatalf("broken answer, listing %d: %v", i+1, err)
		}
		if i == 0 {
			first = err
		} else if !strings.Contains(err.Error(), "not run again until it changes") || !strings.HasPrefix(err.Error(), first.Error()) {
			t.Errorf("remembered error %q, first %q", err, first)
		}
		if executions() != 2 {
			t.Fatalf("broken answer, listing %d: %d executions, want 2", i+1, executions())
		}
	}

	// A new harness (kothd upgraded) lists again.
	h := filepath.Join(dir, HarnessDir, "forty.py")
	b, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h, append(b, "\n# harness v2\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := list(cfg); err == nil || executions() != 3 {
		t.Errorf("new harness: %v, %d executions, want 3", err, executions())
	}

	// No memo: every listing runs the code.
	cfg.Memo = nil
	list(cfg)
	list(cfg)
	if executions() != 5 {
		t.Errorf("without a memo: %d executions, want 5", executions())
	}
}

// A host fault (the interpreter cannot start) is never remembered.
func TestListClassesHostFaultNotRemembered(t *testing.T) {
	t.Parallel()
	st := openTestStore(t, filepath.Join(t.TempDir(), "kothd.db"))
	dir := t.TempDir()
	writeTestFile(t, dir, "bot.py", "class A(Bot):\n    pass\n")
	if err := InstallTestHarness(dir); err != nil {
		t.Fatal(err)
	}
	cfg := PyConfig{Harness: "forty", Python: filepath.Join(dir, "no-such-python"), StartTimeout: 5 * time.Second, Memo: st}
	for i := 0; i < 2; i++ {
		_, err := ListClasses(context.Background(), sandbox.Unsandboxed{}, cfg, dir)
		var f *engine.Fault
		if !errors.As(err, &f) || f.Outcome != engine.HostFault {
			t.Fatalf("listing %d: %v, want a host fault", i+1, err)
		}
	}
	var n int
	if err := st.DB().QueryRow(`SELECT count(*) FROM content_cache`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d entries remembered (%v), want none", n, err)
	}
}

// pyQuote quotes a path as a Python string literal.
func pyQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeTestFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openTestStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
