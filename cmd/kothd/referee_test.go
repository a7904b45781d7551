package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `kothd referee` plays the host's referee against the dummy bots and names each protocol
// mistake with the offending line; a referee that breaks games exits 1. The example
// referee finishes every game.
func TestRefereeCheckNamesMistakes(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "config.yaml")
	body := `data_dir: data
languages:
  python3: {file: bot.py, run: ["/usr/bin/python3", "bot.py"]}
challenges:
  - name: bad
    question_id: 900002
    engine: referee
    extract: {mode: first-block, language: python3}
    options:
      referee: {dir: ` + filepath.Join(root, "engine/referee/testdata/hostile") + `, language: python3, file: referee.py}
      timeout: 2s
      shape: random
      seats: 2
  - name: rps
    question_id: 900001
    engine: referee
    extract: {mode: first-block, language: python3}
    options:
      referee: {dir: ` + filepath.Join(root, "engine/referee/examples/rps") + `, language: python3, file: referee.py}
      shape: round-robin
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := kothd(t, "referee", "bad", "--games", "7", "--config", p)
	for _, want := range []string{
		"game 0 (", "): scores [",
		`line 2 "hello there": not a JSON request`,
		`line 2 "{\"ask\": 7, \"msg\": \"move 2 -\"}": seat 7 does not exist`,
		"RuntimeError: the referee's own bug",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kothd referee's report lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "the referee broke 6 of 7 games") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = kothd(t, "referee", "rps", "--games", "3", "--config", p)
	if code != 0 || !strings.Contains(out, "the referee finished every game") {
		t.Errorf("the example referee: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A referee challenge's options are checked when the config loads: a missing referee or a
// misspelt shape is an error with its line, before any cycle.
func TestRefereeOptionsCheckedAtLoad(t *testing.T) {
	for _, c := range []struct{ options, want string }{
		{"", "options.referee needs dir and language"},
		{"    options:\n      referee: {dir: x, language: python3}\n      shape: round-robbin\n", `options.shape "round-robbin"`},
	} {
		p := filepath.Join(t.TempDir(), "config.yaml")
		body := "sandbox: none\nlanguages:\n  python3: {file: bot.py, run: [\"/usr/bin/python3\", \"bot.py\"]}\nchallenges:\n  - name: rps\n    question_id: 900001\n    engine: referee\n" + c.options
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := kothd(t, "status", "--config", p)
		if code != 1 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "config.yaml:") {
			t.Errorf("options %q: exit %d, %q", c.options, code, errOut)
		}
	}
}
