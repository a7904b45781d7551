package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/config"
)

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildCompileError(t *testing.T) {
	t.Parallel()
	lang := loadLanguages(t)["c"]
	dir := t.TempDir()
	writeFile(t, dir, "bot.c", "#include <stdio.h>\nint main(void) {\n    printf(\"hi\\n\")\n    return 0;\n}\n")
	log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute)
	if err == nil {
		t.Fatalf("broken C compiled; log:\n%s", log)
	}
	if errors.Is(err, ErrBuildHost) {
		t.Errorf("a compile error is the answer's, not the host's: %v", err)
	}
	for _, want := range []string{"bot.c:3", "error: expected", "return"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, dir) {
		t.Errorf("log shows the host path %s:\n%s", dir, log)
	}
	if !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("error does not say how the compiler ended: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, BuildMarker)); err == nil {
		t.Error("a failed build left a marker")
	}
}

// counterLang is a "compiler" that counts its runs in the file count (outside the
// build's directory, which a failed build does not keep), so a test can see whether Build
// ran it. Unsandboxed only: a sandboxed build writes nowhere else.
func counterLang(count string, extra ...string) config.Language {
	script := `n=$(cat '` + count + `' 2>/dev/null || echo 0); echo $((n+1)) > '` + count + `'; echo compiled; test ! -e fail`
	return config.Language{File: "bot.src", Build: append([]string{"sh", "-c", script}, extra...), Run: []string{"true"}}
}

func builds(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBuildCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	count := filepath.Join(t.TempDir(), "count")
	writeFile(t, dir, "bot.src", "v1")
	lang := counterLang(count)
	build := func(lang config.Language) (string, error) {
		return Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute)
	}
	steps := []struct {
		what   string
		change func()
		lang   config.Language
		want   int // builds so far
		log    string
	}{
		{"first build", func() {}, lang, 1, "compiled"},
		{"unchanged sources", func() {}, lang, 1, ""},
		{"files the bot writes while playing", func() {
			writeFile(t, dir, "to_server", "vote x")
			writeFile(t, dir, "memory.txt", "round 3")
		}, lang, 1, ""},
		{"main file edited", func() { writeFile(t, dir, "bot.src", "v2") }, lang, 2, "compiled"},
		{"second source file added", func() { writeFile(t, dir, "util.src", "helper") }, lang, 3, "compiled"},
		{"header added", func() { writeFile(t, dir, "util.h", "#define X 1") }, lang, 4, "compiled"},
		{"build command changed", func() {}, counterLang(count, "-x"), 5, "compiled"},
		{"back to the old command", func() {}, lang, 6, "compiled"},
		{"stable again", func() {}, lang, 6, ""},
	}
	for _, s := range steps {
		s.change()
		log, err := build(s.lang)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.what, err, log)
		}
		if got := builds(t, count); got != s.want {
			t.Fatalf("%s: %d builds so far, want %d", s.what, got, s.want)
		}
		if log != s.log {
			t.Errorf("%s: log %q, want %q", s.what, log, s.log)
		}
	}

	// A failed build leaves its log alone (no marker), so the next attempt compiles again
	// even though the sources are back to ones that once built.
	writeFile(t, dir, "bot.src", "v3")
	writeFile(t, dir, "fail", "")
	if _, err := build(lang); err == nil {
		t.Fatal("failing build reported success")
	}
	if got := entries(t, dir); !slices.Equal(got, []string{BuildLog}) {
		t.Fatalf("failed build left %v, want its log alone", got)
	}
	writeFile(t, dir, "bot.src", "v2") // the next cycle materialises the answer again
	if _, err := build(lang); err != nil {
		t.Fatal(err)
	}
	if got := builds(t, count); got != 8 {
		t.Errorf("%d builds after a failure and a retry, want 8", got)
	}
}

// The cache with a real compiler: a second Build of unchanged sources leaves the binary
// alone. The test swaps the binary for a script after the first build; a recompilation
// would overwrite it.
func TestBuildCacheKeepsBinary(t *testing.T) {
	t.Parallel()
	lang := loadLanguages(t)["c"]
	dir := copyBot(t, "c")
	ctx := context.Background()
	if log, err := Build(ctx, sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if err := os.WriteFile(filepath.Join(dir, "bot"), []byte("#!/bin/sh\necho cached\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if log, err := Build(ctx, sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil || log != "" {
		t.Fatalf("second build: %v, log %q", err, log)
	}
	if got := runBot(t, lang, dir, "x"); got != "cached\n" {
		t.Fatalf("unchanged sources were compiled again: bot printed %q", got)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "bot.c"))
	writeFile(t, dir, "bot.c", string(src)+"/* edited */\n")
	if log, err := Build(ctx, sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if got := runBot(t, lang, dir, "x"); got != "x\n" {
		t.Fatalf("edited sources were not compiled again: bot printed %q", got)
	}
}

func TestBuildTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bot.src", "")
	// The background sleep is what a compiler's leftover child would be.
	pidFile := filepath.Join(t.TempDir(), "bg.pid") // outside the build's directory, which a failure clears
	lang := config.Language{File: "bot.src", Build: []string{"sh", "-c", "sleep 60 & echo $! > '" + pidFile + "'; echo started; wait"}}
	log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, 300*time.Millisecond)
	// Unsandboxed there is no CPU accounting: the bound is the 5× wall-clock backstop.
	if err == nil || !strings.Contains(err.Error(), "timed out after 1.5s") {
		t.Fatalf("err = %v, want a time-out", err)
	}
	if errors.Is(err, ErrBuildHost) {
		t.Errorf("time-out reported as a host problem: %v", err)
	}
	if log != "started" {
		t.Errorf("log %q, want the output so far", log)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The kill is asynchronous only in the kernel's sense; give the process a moment to
	// become a zombie or disappear.
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Error("the build's background child survived the time-out")
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

func TestBuildHostFault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bot.c", "int main(void) { return 0; }\n")
	lang := config.Language{File: "bot.c", Build: []string{"/nonexistent/cc", "bot.c"}}
	_, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute)
	if !errors.Is(err, ErrBuildHost) {
		t.Fatalf("err = %v, want ErrBuildHost", err)
	}
	var pe *os.PathError
	if !errors.As(err, &pe) && !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("err = %v lost its cause", err)
	}
}

func TestBuildNothingToDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() // not even the source: a language without a build looks at nothing
	log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, loadLanguages(t)["python3"], dir, sandbox.Limits{}, time.Minute)
	if err != nil || log != "" {
		t.Fatalf("Build = %q, %v; want nothing", log, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Build wrote %v", entries)
	}
}

// An answer that named its C file itself still builds: every .c file is compiled.
func TestBuildNamedSource(t *testing.T) {
	t.Parallel()
	lang := loadLanguages(t)["c"]
	dir := t.TempDir()
	writeFile(t, dir, "robber.c", "#include \"odds.h\"\n#include <stdio.h>\nint main(void) { printf(\"%d\\n\", odds()); return 0; }\n")
	writeFile(t, dir, "odds.c", "#include \"odds.h\"\nint odds(void) { return ODDS; }\n")
	writeFile(t, dir, "odds.h", "#define ODDS 42\nint odds(void);\n")
	if log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if got := runBot(t, lang, dir); got != "42\n" {
		t.Errorf("bot printed %q, want 42", got)
	}
}

func TestBuildMissingSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "odds.h", "#define ODDS 42\n") // a header alone is not a program
	writeFile(t, dir, "bot.py", "print(1)\n")
	log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, loadLanguages(t)["c"], dir, sandbox.Limits{}, time.Minute)
	if err == nil || !strings.Contains(log, "bot.c (or another .c file) is missing") {
		t.Fatalf("Build = %q, %v; want a missing-source error", log, err)
	}
	if errors.Is(err, ErrBuildHost) {
		t.Errorf("missing source reported as a host problem: %v", err)
	}
}

// A compiler that floods its output: the log keeps the end, starting at a line, within
// bounds, without the host's path.
func TestBuildLogTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "bot.src", "")
	script := `i=0; while [ $i -lt 5000 ]; do echo "warning $i: something"; i=$((i+1)); done; echo "$PWD/bot.src:1: the last error"; exit 2`
	lang := config.Language{File: "bot.src", Build: []string{"sh", "-c", script}}
	log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("err = %v, want exit status 2", err)
	}
	if len(log) > buildLogMax+100 {
		t.Errorf("log is %d bytes", len(log))
	}
	if !strings.HasSuffix(log, "\nbot.src:1: the last error") {
		t.Errorf("log does not end with the last line (host path removed):\n…%s", log[max(0, len(log)-200):])
	}
	first, rest, _ := strings.Cut(log, "\n")
	if !strings.HasPrefix(first, "[… ") || !strings.HasPrefix(rest, "warning ") {
		t.Errorf("log does not start with a cut notice and then a whole line:\n%.200s", log)
	}
}

func BenchmarkBuildCached(b *testing.B) {
	lang := loadLanguages(b)["c"]
	dir := copyBot(b, "c")
	ctx := context.Background()
	if log, err := Build(ctx, sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
		b.Fatalf("%v\n%s", err, log)
	}
	for b.Loop() {
		if _, err := Build(ctx, sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildCold measures one uncached build of each compiled language's hello world
// (go: a cold build cache every time, as a fresh bot directory has).
func BenchmarkBuildCold(b *testing.B) {
	langs := loadLanguages(b)
	for _, key := range []string{"c", "cpp", "java", "go"} {
		b.Run(key, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := copyBot(b, key)
				b.StartTimer()
				if log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, langs[key], dir, sandbox.Limits{}, 5*time.Minute); err != nil {
					b.Fatalf("%v\n%s", err, log)
				}
			}
		})
	}
}

// A bot that played in its directory may have left a symlink or a FIFO where Build reads
// and writes its marker: Build neither writes through the link nor blocks on the FIFO.
func TestBuildMarkerHardening(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "host-file")
	writeFile(t, filepath.Dir(outside), "host-file", "precious")
	writeFile(t, dir, "bot.src", "v1")
	if err := os.Symlink(outside, filepath.Join(dir, BuildMarker+".tmp")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, BuildMarker), 0o644); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(t.TempDir(), "count")
	lang := counterLang(count)
	for i := 0; i < 2; i++ {
		if log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("Build wrote through a symlink: the outside file holds %q", b)
	}
	if n := builds(t, count); n != 1 {
		t.Errorf("%d builds, want 1 (the marker replaced the FIFO)", n)
	}
}
