package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kothd/kothd/publisher/fakegithub"
	"github.com/kothd/kothd/scraper/fakeapi"
)

// The README's quick start, with the fake Stack Exchange API and the fake GitHub standing
// in where real credentials are needed: the repository's config with the host's paths and
// GitHub repository, SE_API_KEY and GITHUB_TOKEN in the environment, `kothd check`, one
// cycle, `kothd status`. The board ends up committed to the repository.
func TestQuickStartWithStandIns(t *testing.T) {
	api := fakeapi.New()
	defer api.Close()
	// Three answers: one entered, one refused (QuotaBot), one more.
	if err := api.LoadSnapshot(fortySnapshot(t, 177771, 177786, 178066), "codegolf"); err != nil {
		t.Fatal(err)
	}
	gh := fakegithub.New()
	defer gh.Close()
	t.Setenv("SE_API_KEY", "stack-apps-key")
	t.Setenv("GITHUB_TOKEN", gh.Token())

	b, err := os.ReadFile("../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := string(b)
	for old, new := range map[string]string{
		"data_dir: data ":           "data_dir: " + filepath.Join(dir, "data") + " ",
		"output_dir: leaderboards ": "output_dir: " + filepath.Join(dir, "leaderboards") + " ",
		"site: codegolf\n":          "site: codegolf\napi_base: " + api.BaseURL() + "\ntimezone: UTC\n",
		"  owner: \"\"":             "  owner: o",
		"  repo: \"\"":              "  repo: r",
		"  path: leaderboards\n":    "  path: leaderboards\n  base_url: " + gh.BaseURL() + "\n",
		"    games: 20000\n":        "    games: 20\n",
		"    adaptive: {batch: 5000, min_games: 5000}\n": "    adaptive: {batch: 10, min_games: 10}\n",
	} {
		if !strings.Contains(cfg, old) {
			t.Fatalf("config.yaml no longer contains %q", old)
		}
		cfg = strings.Replace(cfg, old, new, 1)
	}
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := kothd(t, "check", "--config", path, "forty", "177771")
	if code != 0 || !strings.Contains(out, "GoTo20Bot: would be entered") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "kothd.db")); !os.IsNotExist(err) {
		t.Errorf("check created the store (%v)", err)
	}
	code, _, errOut = kothd(t, "once", "--config", path, "--challenge", "forty")
	if code != 0 {
		t.Fatalf("once: exit %d\n%s", code, errOut)
	}
	board := gh.Files("main")["leaderboards/forty.md"]
	if !strings.Contains(board, "GoTo20Bot") || !strings.Contains(board, "20 games") {
		t.Errorf("board on GitHub:\n%s", board)
	}
	if api.Requests() == 0 || !strings.Contains(strings.Join(api.Log(), "\n"), "key=stack-apps-key") {
		t.Errorf("the API was not asked with the key: %v", api.Log())
	}
	code, out, errOut = kothd(t, "status", "--config", path, "--challenge", "forty")
	if code != 0 || !strings.Contains(out, "published:    github:o/r@main/leaderboards: ok at") ||
		!strings.Contains(out, "run 1 started") || !strings.Contains(out, "NOT entered  QuotaBot") {
		t.Errorf("status: exit %d\n%s%s", code, out, errOut)
	}
}
