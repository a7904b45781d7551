package build

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kothd/kothd/runner/sandbox"

	"github.com/kothd/kothd/config"
)

// loadLanguages reads the languages table of the repository's config.yaml, so the tests
// check the table the daemon ships with, not a copy of it.
func loadLanguages(tb testing.TB) map[string]config.Language {
	tb.Helper()
	c, err := config.Load("../../config.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	if len(c.Languages) == 0 {
		tb.Fatal("config.yaml has no languages")
	}
	return c.Languages
}

func TestResolveLanguageConfig(t *testing.T) {
	langs := loadLanguages(t)
	tests := []struct {
		spelling string
		want     string // "" = unknown
	}{
		{"Python 3", "python3"},
		{"python3", "python3"},
		{"PYTHON 3", "python3"},
		{"Python\u00a03", "python3"}, // non-breaking space, as headers sometimes have
		{"Python 3.6", "python3"},
		{"Python 3.x", "python3"},
		{"Python", "python3"},
		{"Python 2", "python2"},
		{"Python 2.7", "python2"},
		{"Python 2.7.13", "python2"},
		{"python2", "python2"},
		{"C (gcc)", "c"},
		{"C (clang)", "c"},
		{"C", "c"},
		{"c", "c"},
		{"C99", "c"},
		{"GCC", "c"},
		{"C++", "cpp"},
		{"C++ (gcc)", "cpp"},
		{"C++17", "cpp"},
		{"C++ 11", "cpp"},
		{"g++", "cpp"},
		{"cpp", "cpp"},
		{"Java", "java"},
		{"Java 8", "java"},
		{"Java 1.8", "java"},
		{"java", "java"},
		{"node.js", "javascript"},
		{"Node.js", "javascript"},
		{"Node", "javascript"},
		{"JavaScript (Node.js)", "javascript"},
		{"JavaScript (ES6)", "javascript"},
		{"ES6", "javascript"},
		{"JS", "javascript"},
		{"Go", "go"},
		{"Go 1.12", "go"},
		{"golang", "go"},
		{"Bash", "bash"},
		{"bash 4.4", "bash"},
		{"sh", "bash"},
		{"Shell script", "bash"},
		// Unknown: languages this host cannot run, near misses, nothing at all.
		{"C#", ""},
		{"Ruby", ""},
		{"Pyth", ""},
		{"Objective-C", ""},
		{"Brainfuck", ""},
		{"", ""},
		{"   ", ""},
		{"(gcc)", ""},
		{"3", ""},
	}
	for _, tt := range tests {
		got, ok := ResolveLanguage(langs, tt.spelling)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("ResolveLanguage(%q) = %q, %v; want %q, %v", tt.spelling, got, ok, tt.want, tt.want != "")
		}
	}
}

// Every alias and key of the shipped table must lead back to its own entry: an alias that
// another entry shadows is a mistake in config.yaml.
func TestResolveLanguageOwnAliases(t *testing.T) {
	langs := loadLanguages(t)
	for key, l := range langs {
		for _, s := range append([]string{key}, l.Aliases...) {
			if got, ok := ResolveLanguage(langs, s); !ok || got != key {
				t.Errorf("alias %q of %s resolves to %q, %v", s, key, got, ok)
			}
		}
	}
}

func TestResolveLanguageRules(t *testing.T) {
	langs := map[string]config.Language{
		"py3":   {Aliases: []string{"Python 3", "Python"}},
		"py2":   {Aliases: []string{"Python 2"}},
		"zlang": {Aliases: []string{"Shared"}},
		"alang": {Aliases: []string{"Shared"}},
		"other": {Aliases: []string{"py2"}}, // claims another entry's key
		"cs":    {Aliases: []string{"C#"}},
		"c":     {},
	}
	tests := []struct {
		spelling string
		want     string
	}{
		{"Python 2", "py2"},         // exact beats the version-dropping fallback
		{"Python 2.7", "py2"},       // fallback stops at the first hit
		{"Python 4", "py3"},         // …and goes on to the bare name
		{"shared", "alang"},         // clash: the first key in sorted order wins, every time
		{"py2", "py2"},              // a key is never shadowed by another entry's alias
		{"c#", "cs"},                // not "c": exact match first, and # is not a version
		{"C", "c"},                  // a key with no aliases still resolves
		{"Python 3 [numpy]", "py3"}, // brackets are remarks too
		{"Python (3", "py3"},        // an unclosed remark drops the rest
		{"python3.6.1", "py3"},      // one component at a time
		{"Python 3.6rc", ""},        // not a version, so not stripped
		{"JavaScript", ""},          // not in this table
		{"Python 3 Python", ""},     // nothing stripped from the middle
	}
	for _, tt := range tests {
		for i := 0; i < 5; i++ { // map order must not matter
			got, ok := ResolveLanguage(langs, tt.spelling)
			if ok != (tt.want != "") || got != tt.want {
				t.Fatalf("ResolveLanguage(%q) = %q, %v; want %q", tt.spelling, got, ok, tt.want)
			}
		}
	}
	if k, ok := ResolveLanguage(nil, "C"); ok {
		t.Errorf("empty table resolved C to %q", k)
	}
}

func BenchmarkResolveLanguage(b *testing.B) {
	langs := loadLanguages(b)
	spellings := []string{"Python 3", "JavaScript (Node.js)", "C++17", "Python 2.7.13", "Ruby"}
	for i := 0; b.Loop(); i++ {
		ResolveLanguage(langs, spellings[i%len(spellings)])
	}
}

// echoArgs are what every hello-world bot in testdata/langs must print back, joined by
// single spaces: a negative number and a float as Bank Heist passes them, and a non-ASCII
// word to prove the arguments reach the bot unmangled.
var echoArgs = []string{"31", "-2", "0.25", "héllo"}

// copyBot copies testdata/langs/<key> into a fresh directory.
func copyBot(t testing.TB, key string) string {
	t.Helper()
	src := filepath.Join("testdata", "langs", key)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatalf("no hello-world bot for language %s: %v", key, err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runBot runs lang.Run plus args in dir, as the argv protocol does, and returns stdout.
func runBot(t testing.TB, lang config.Language, dir string, args ...string) string {
	t.Helper()
	argv := append(append([]string(nil), lang.Run...), args...)
	proc, err := sandbox.Unsandboxed{}.Command(context.Background(), sandbox.ProcSpec{Dir: dir, Argv: argv})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Release()
	cmd := proc.Cmd
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run %v: %v; stderr: %s", argv, err, stderr.String())
	}
	return string(out)
}

// Every language of the shipped config.yaml builds and runs its hello-world bot on this
// machine, with the scrubbed environment bots get.
func TestLanguagesBuildAndRun(t *testing.T) {
	langs := loadLanguages(t)
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		lang := langs[key]
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			dir := copyBot(t, key)
			if _, err := os.Stat(filepath.Join(dir, lang.File)); err != nil {
				t.Fatalf("testdata/langs/%s has no %s: %v", key, lang.File, err)
			}
			log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, 2*time.Minute)
			if err != nil {
				t.Fatalf("build: %v\n%s", err, log)
			}
			_, err = os.Stat(filepath.Join(dir, BuildMarker))
			if built := len(lang.Build) > 0; built != (err == nil) {
				t.Errorf("build command %v, but marker present = %v", lang.Build, err == nil)
			}
			got := runBot(t, lang, dir, echoArgs...)
			if want := strings.Join(echoArgs, " ") + "\n"; got != want {
				t.Errorf("bot printed %q, want %q", got, want)
			}
			// A build leaves the bot directory holding the bot, not the toolchain's
			// scratch files (the Go cache alone is tens of megabytes).
			for _, junk := range []string{".gobuild", ".cache", ".config"} {
				if _, err := os.Stat(filepath.Join(dir, junk)); err == nil {
					t.Errorf("build left %s in the bot directory", junk)
				}
			}
		})
	}
}

// Java answers name their files and classes as they please; the build finds the main
// class.
func TestJavaClassNames(t *testing.T) {
	lang := loadLanguages(t)["java"]
	const echoBot = `import java.util.*;

public final class EchoBot {
    static class Helper { static String join(String[] a) { return String.join("+", a); } }

    public static void main(String[] args) {
        System.out.println("EchoBot " + Helper.join(args));
    }
}
`
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"public class other than Bot", map[string]string{"Bot.java": echoBot}, "EchoBot 1+-2\n"},
		{"non-public class in a package", map[string]string{"Bot.java": `package heist;

class Robber {
    public static void main(String[] args) {
        System.out.println("Robber " + args.length);
    }
}
`}, "Robber 2\n"},
		{"named file and a helper", map[string]string{
			"Robber.java": `public class Robber {
    public static void main(String[] args) { System.out.println(Odds.say(args[0])); }
}
`,
			"Odds.java": `public class Odds {
    static String say(String a) { return "odds " + a; }
}
`}, "odds 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, src := range tt.files {
				writeFile(t, dir, name, src)
			}
			if log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, lang, dir, sandbox.Limits{}, time.Minute); err != nil {
				t.Fatalf("build: %v\n%s", err, log)
			}
			if got := runBot(t, lang, dir, "1", "-2"); got != tt.want {
				t.Errorf("bot printed %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkStart measures one run of each language's hello world: the fixed cost of every
// decision under the argv protocol (one process per decision).
func BenchmarkStart(b *testing.B) {
	langs := loadLanguages(b)
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		b.Run(key, func(b *testing.B) {
			dir := copyBot(b, key)
			if log, err := Build(context.Background(), sandbox.Unsandboxed{}, nil, langs[key], dir, sandbox.Limits{}, 5*time.Minute); err != nil {
				b.Fatalf("%v\n%s", err, log)
			}
			for b.Loop() {
				runBot(b, langs[key], dir, echoArgs...)
			}
		})
	}
}
