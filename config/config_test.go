package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDefaultsAndPaths(t *testing.T) {
	t.Setenv("SE_API_KEY", "k3y")
	p := write(t, "challenges:\n  - {name: forty, question_id: 177765, limits: {call_timeout: 250ms}}\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if c.DataDir != filepath.Join(dir, "data") || c.OutputDir != filepath.Join(dir, "leaderboards") {
		t.Errorf("paths not relative to the config file: %s %s", c.DataDir, c.OutputDir)
	}
	if c.Sandbox != "bwrap" || c.Site != "codegolf" || c.APIKey != "k3y" || c.Python != "/usr/bin/python3" {
		t.Errorf("defaults: %+v", c)
	}
	ch, err := c.Challenge("forty")
	if err != nil || ch.Engine != "forty" || ch.Limits.CallTimeout.D(time.Second) != 250*time.Millisecond {
		t.Errorf("challenge: %+v %v", ch, err)
	}
	if _, err := c.Challenge("nope"); err == nil {
		t.Error("unknown challenge found")
	}
}

func TestLoadRejects(t *testing.T) {
	for body, want := range map[string]string{
		"challenges:\n  - {name: a, question_id: 1}\n  - {name: a, question_id: 2}\n": "declared twice",
		"challenges:\n  - {name: a}\n": "question_id",
		"sandbox: docker\n":            "sandbox must be",
		"challenges:\n  - {name: a, question_id: 1, limits: {call_timeout: soon}}\n": ":2: call_timeout in limits of challenge a must be a duration",
		"challenges: [\n": "parse config",
	} {
		_, err := Load(write(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want it to mention %q", body, err, want)
		}
	}
}

// Every mistake of the issue, in one file, each reported with file:line and its key, all
// at once: a fraction where a whole number goes (was truncated), negative caps and
// durations (accepted; stop_timeout failed later inside the scheduler), a challenge name
// that climbs out of the output directory, owner without repo (GitHub silently off), type
// errors (without file or key), and an unknown key (which hid every other error).
func TestLoadReportsEveryKindOfMistake(t *testing.T) {
	body := `stop_timeout: -5s
github:
  owner: me
gmes: 3
challenges:
  - name: a
    question_id: 1
    games: 1.5
    concurrency: lots
    limits:
      name_max: -1
      classes_per_answer: -1
      bots_per_challenge: -1
      answer_budget: -1s
      total_budget: -1s
      call_timeout: [1s]
  - name: ../../etc/x
    question_id: 2
    baselines: maybe
`
	p := write(t, body)
	_, err := Load(p)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		p + ":1: stop_timeout must not be negative",
		p + ":2: github: owner and repo go together",
		p + `:4: unknown key "gmes"`,
		p + `:8: games in challenge a must be a whole number, not "1.5"`,
		p + `:9: concurrency in challenge a must be a whole number, not "lots"`,
		p + ":11: challenge a: limits.name_max must not be negative",
		p + ":12: challenge a: limits.classes_per_answer must not be negative",
		p + ":13: challenge a: limits.bots_per_challenge must not be negative",
		p + ":14: challenge a: limits.answer_budget must not be negative",
		p + ":15: challenge a: limits.total_budget must not be negative",
		p + ":16: call_timeout in limits of challenge a must be a duration such as 250ms, 2s or 5m, not a list",
		p + `:17: challenge ../../etc/x: the name "../../etc/x" is not a short name`,
		p + `:19: baselines in challenge ../../etc/x must be true or false, not "maybe"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("got:\n%v", err)
	}
	for body, want := range map[string]string{
		"":                   "the config is empty",
		"# only a comment\n": "the config is empty",
		"site: codegolf\n":   "no challenges",
		"github: {repo: r}\nchallenges: [{name: a, question_id: 1}]\n":                          "owner and repo go together",
		"challenges: [{name: a, question_id: 1}]\ngithub: {owner: o, repo: r, deadline: -1m}\n": "github.deadline must not be negative",
	} {
		if _, err := Load(write(t, body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
}

// The repository's own config declares the five challenges with their engines.
func TestRepositoryConfig(t *testing.T) {
	c, err := Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"bankheist": 115303, "whiteelephant": 169235, "forty": 177765, "ruins": 183101, "mafia": 151341}
	for name, id := range want {
		ch, err := c.Challenge(name)
		if err != nil || ch.QuestionID != id || ch.Engine != name {
			t.Errorf("%s: %+v %v", name, ch, err)
		}
	}
}
