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
		"challenges:\n  - {name: a, question_id: 1, limits: {call_timeout: soon}}\n": "line 2",
		"challenges: [\n": "parse config",
	} {
		_, err := Load(write(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want it to mention %q", body, err, want)
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
