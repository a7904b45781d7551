package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"
	"github.com/kothd/kothd/runner/sandbox/sandboxtest"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/store"
)

// openStore is a real SQLite store in a temp directory (the memo a cycle uses).
func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// attempts counts the runs of a build command that appends a line to the file counter.
func attempts(t *testing.T, counter string) int {
	t.Helper()
	b, err := os.ReadFile(counter)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// countingC is the configured C language with a build command that counts its runs in
// counter, outside the build's directory (which a failed build does not keep): for
// unsandboxed builds, which can write there.
func countingC(t *testing.T, counter string) config.Language {
	lang := loadLanguages(t)["c"]
	lang.Build = []string{"sh", "-c", "echo x >> '" + counter + "'; " + lang.Build[len(lang.Build)-1]}
	return lang
}

// An include bomb (a file that includes itself twice: exponential work) spends the whole
// build timeout once; afterwards the same sources are not built again, in this cycle, the
// next, or after a restart, nor in another answer with the same files; the remembered
// failure keeps its log. Edited sources build again. Real gcc in the real sandbox.
func TestBuildIncludeBombBuiltOnce(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	// A sandboxed build can write only its own directory, which a failure clears: whether
	// Build ran the compiler shows in the failure, remembered (Cached) or not.
	lang := loadLanguages(t)["c"]
	dbPath := filepath.Join(t.TempDir(), "kothd.db")
	st := openStore(t, dbPath)
	bomb := "#include \"bot.c\"\n#include \"bot.c\"\nint main(void) { return 0; }\n"
	dir := t.TempDir()
	writeFile(t, dir, "bot.c", bomb)
	const timeout = 3 * time.Second
	build := func(memo Memo, dir string) (string, *BuildError) {
		t.Helper()
		var log string
		var err error
		// A build the wall-clock backstop stops before it spent its CPU budget is the
		// host's trouble (a busy machine), not remembered: it is built again, as the next
		// cycle would.
		for range 5 {
			writeFile(t, dir, "bot.c", bomb) // as each cycle materialises it
			if log, err = Build(context.Background(), sb, memo, lang, dir, sandbox.Limits{}, timeout); !errors.Is(err, ErrBuildHost) {
				break
			}
			t.Logf("the host was busy, building again: %v", err)
		}
		var be *BuildError
		if !errors.As(err, &be) {
			t.Fatalf("err = %v, want a *BuildError", err)
		}
		if be.Log != log {
			t.Errorf("the error's log differs from the returned log")
		}
		return log, be
	}

	log1, first := build(st, dir)
	if first.How != "timed out after 3s of CPU time" || !first.Cached.IsZero() {
		t.Fatalf("first build: %q (cached %v); the log ends:\n%s", first.Error(), first.Cached, log1[max(0, len(log1)-600):])
	}
	if !strings.Contains(log1, "bot.c") {
		t.Errorf("the log does not show the compiler's output: %q", log1)
	}

	log2, again := build(st, dir)
	if again.Cached.IsZero() {
		t.Fatalf("the include bomb was built again: %q", again.Error())
	}
	if log2 != log1 || !strings.Contains(again.Error(), "timed out after 3s") ||
		!strings.Contains(again.Error(), "not built again until the answer changes") {
		t.Errorf("remembered failure: %q (cached %v), log kept: %v", again.Error(), again.Cached, log2 == log1)
	}

	// The next cycle's daemon, after a restart, and another answer with the same files.
	st.Close()
	st = openStore(t, dbPath)
	other := t.TempDir()
	for _, d := range []string{dir, other} {
		if _, be := build(st, d); be.Cached.IsZero() {
			t.Errorf("%s after a restart: built again: %q", d, be.Error())
		}
	}

	// Without a memo, the failure is not remembered (each call builds).
	if _, be := build(nil, other); !be.Cached.IsZero() {
		t.Errorf("no memo: %q, remembered", be.Error())
	}

	// The participant fixes the answer: new sources, built (a loaded host may need more
	// than the bomb's short timeout for them).
	writeFile(t, dir, "bot.c", "int main(void) { return 0; }\n")
	if log, err := Build(context.Background(), sb, st, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
		t.Fatalf("fixed answer: %v\n%s", err, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "bot")); err != nil {
		t.Errorf("the fixed answer's binary is not in its directory: %v", err)
	}
}

// A compile error is remembered the same way; a host that changes the limits or the
// timeout builds again (the failure may have been theirs). Failures that are not the
// answer's are never remembered: a cancelled build, a memo the host cannot read.
func TestBuildFailureKeyAndHostFailures(t *testing.T) {
	t.Parallel()
	counter := filepath.Join(t.TempDir(), "attempts")
	lang := countingC(t, counter)
	st := openStore(t, filepath.Join(t.TempDir(), "kothd.db"))
	dir := t.TempDir()
	ctx := context.Background()
	steps := []struct {
		what    string
		limits  sandbox.Limits
		timeout time.Duration
		want    int // attempts so far
	}{
		{"first", sandbox.Limits{}, time.Minute, 1},
		{"same", sandbox.Limits{}, time.Minute, 1},
		{"longer timeout", sandbox.Limits{}, 2 * time.Minute, 2},
		{"more memory", sandbox.Limits{MemoryMB: 2048}, 2 * time.Minute, 3},
		{"same again", sandbox.Limits{MemoryMB: 2048}, 2 * time.Minute, 3},
	}
	for _, s := range steps {
		writeFile(t, dir, "bot.c", "int main(void) { return 0 }\n") // as each cycle materialises it
		log, err := Build(ctx, sandbox.Unsandboxed{}, st, lang, dir, s.limits, s.timeout)
		var be *BuildError
		if !errors.As(err, &be) || !strings.Contains(log, "expected") || !strings.Contains(be.How, "exit status 1") {
			t.Fatalf("%s: err %v, log %q", s.what, err, log)
		}
		if got := attempts(t, counter); got != s.want {
			t.Fatalf("%s: %d attempts, want %d", s.what, got, s.want)
		}
	}

	// Cancelled mid-build: not the answer's failure, not remembered.
	scount := filepath.Join(t.TempDir(), "attempts")
	slow := config.Language{File: "bot.src", Build: []string{"sh", "-c", "echo x >> '" + scount + "'; sleep 30"}}
	sdir := t.TempDir()
	writeFile(t, sdir, "bot.src", "x")
	for want := 1; want <= 2; want++ {
		// Cancel once the build has started (it has counted itself).
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			for cctx.Err() == nil && attempts(t, scount) < want {
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
		}()
		_, err := Build(cctx, sandbox.Unsandboxed{}, st, slow, sdir, sandbox.Limits{}, time.Minute)
		cancel()
		if err == nil || errors.As(err, new(*BuildError)) {
			t.Fatalf("cancelled build: %v, want the context's error", err)
		}
		if got := attempts(t, scount); got != want {
			t.Fatalf("cancelled build remembered: %d attempts, want %d", got, want)
		}
	}

	// A memo that cannot be read is the host's failure, not a compile error.
	st.Close()
	if _, err := Build(ctx, sandbox.Unsandboxed{}, st, lang, dir, sandbox.Limits{}, time.Minute); !errors.Is(err, ErrBuildHost) {
		t.Errorf("closed memo: %v, want ErrBuildHost", err)
	}
}

// A build's timeout is CPU time. One that runs out the wall-clock backstop without
// computing (here it sleeps, as a compiler starved of CPU on a loaded host waits) is the
// host's trouble, not the answer's: it is reported as ErrBuildHost, not remembered, and
// built again next time. Real sandbox and real cgroup CPU accounting.
func TestBuildTimeoutOnBusyHostNotRemembered(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	if err := sandbox.CheckCgroups(); err != nil {
		t.Skipf("no cgroup CPU accounting: %v", err)
	}
	lang := loadLanguages(t)["c"]
	lang.Build = []string{"sh", "-c", "sleep 30"}
	st := openStore(t, filepath.Join(t.TempDir(), "kothd.db"))
	dir := t.TempDir()
	writeFile(t, dir, "bot.c", "int main(void) { return 0; }\n")
	for i := 1; i <= 2; i++ {
		_, err := Build(context.Background(), sb, st, lang, dir, sandbox.Limits{}, 200*time.Millisecond)
		var be *BuildError
		if errors.As(err, &be) || !errors.Is(err, ErrBuildHost) {
			t.Fatalf("build %d: err = %v, want ErrBuildHost and no *BuildError", i, err)
		}
		// A remembered failure would be a *BuildError (Cached) the second time.
		if _, err := os.Stat(filepath.Join(dir, "bot.c")); err != nil {
			t.Fatalf("after build %d: the host's trouble cleared the answer's directory: %v", i, err)
		}
	}
}

// A build whose processes together outgrow the sandbox's memory has one killed by the
// kernel; its parent then reports only an exit status (gcc's 4). The failure says memory.
func TestBuildOutOfMemoryIsNamed(t *testing.T) {
	sb := sandboxtest.NeedBwrap(t)
	// Two processes of 150 MB each (touched), each within RLIMIT_DATA, together past the
	// sandbox's 256 MB: the cgroup's OOM killer ends one, and the script exits 4 as gcc does.
	hog := `/usr/bin/python3 -c "a = b'x' * (150 << 20); import time; time.sleep(3)"`
	lang := config.Language{File: "bot.sh", Build: []string{"sh", "-c", hog + " & " + hog + " & wait; wait; exit 4"}}
	dir := t.TempDir()
	writeFile(t, dir, "bot.sh", "echo hi\n")
	_, err := Build(context.Background(), sb, nil, lang, dir, sandbox.Limits{MemoryMB: 256}, 20*time.Second)
	var be *BuildError
	if !errors.As(err, &be) || be.How != "ran out of memory (memory_mb)" {
		t.Fatalf("err = %v, want a build error that names memory", err)
	}
}
