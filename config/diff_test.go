package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A reload's log names what changed, as the host's keys: top-level, nested, per language
// and per challenge (added, removed, changed key); the same text moved to other lines (an
// engine's options shifted by a comment) is no change.
func TestChangesNamesTheKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) *Config {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	base := "sandbox: none\nlanguages:\n  sh: {file: bot.sh, run: [sh, bot.sh]}\n  c: {file: bot.c, run: [./bot]}\n" +
		"challenges:\n  - {name: forty, question_id: 1, engine: forty, games: 10}\n  - name: mafia\n    question_id: 2\n    options: {rounds: 3}\n"
	old := write("a.yaml", base)
	if got := Changes(old, write("b.yaml", "# a comment moves every line\n"+base)); len(got) != 0 {
		t.Errorf("the same config: %v", got)
	}
	next := strings.NewReplacer("sandbox: none\n", "sandbox: none\nschedule: \"0 5 * * *\"\ngithub: {owner: o, repo: r}\n",
		"  c: {file: bot.c, run: [./bot]}\n", "  go: {file: bot.go, run: [./bot]}\n",
		"[sh, bot.sh]", "[bash, bot.sh]", "games: 10", "games: 20", "rounds: 3", "rounds: 4",
		"  - name: mafia", "  - {name: ruins, question_id: 3}\n  - name: mafia").Replace(base)
	got := Changes(old, write("c.yaml", next))
	want := []string{"schedule", "github.owner", "github.repo", "languages.c (removed)", "languages.go (added)", "languages.sh",
		"challenges.forty.games", "challenges.mafia.options", "challenges.ruins (added)"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("no %q in %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}
