package cron

import (
	"testing"

	"gopkg.in/yaml.v3"

	"kothd/config"
)

// adapterEnv is a play environment for one challenge of the repository's config, with the
// given engine options (YAML), a scratch data directory and the real sandbox.
func adapterEnv(t *testing.T, challenge, options string) *PlayEnv {
	t.Helper()
	cfg, err := config.Load("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir()
	ch, err := cfg.Challenge(challenge)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(options), &ch.Options); err != nil {
		t.Fatal(err)
	}
	return &PlayEnv{Challenge: ch, Config: cfg, Sandbox: testSandbox(t)}
}
