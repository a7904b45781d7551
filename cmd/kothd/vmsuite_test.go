package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The quick start of docs/deploy.md is what the VM suite runs (scripts/vm/guest/
// quickstart.sh, on Debian 12 with systemd and cgroup v2): every command of the doc's
// block, verbatim and in order; the script's other lines say why the VM needs them
// ("# vm-only: …"). A doc edited without the suite, or the suite without the doc, fails.
func TestQuickStartIsWhatTheVMRuns(t *testing.T) {
	repo := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(repo, "scripts", "vm", "guest", "quickstart.sh"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- quick start: scripts/vm/guest/quickstart.sh runs these lines"
	_, after, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("docs/deploy.md lacks the quick start's marker %q", marker)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/deploy.md: no code block after the quick start's marker")
	}
	want := commandLines(block)
	if len(want) < 5 {
		t.Fatalf("the quick start's block has %d commands: %q", len(want), want)
	}
	i := 0
	for _, line := range commandLines(string(script)) {
		if i < len(want) && line == want[i] {
			i++
			continue
		}
		if !strings.Contains(line, "# vm-only: ") {
			t.Errorf("quickstart.sh runs %q, which is not the doc's next command (%q) and does not say why (# vm-only: …)", line, want[min(i, len(want)-1)])
		}
	}
	if i < len(want) {
		t.Errorf("quickstart.sh does not run the doc's %q (or not in the doc's order)", want[i])
	}
}

// commandLines are a shell text's commands: continuation lines joined, blank and
// comment-only lines dropped, surrounding space trimmed.
func commandLines(s string) []string {
	var out []string
	s = strings.ReplaceAll(s, "\\\n", "\x00")
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.ReplaceAll(l, "\x00", "\\\n"))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}
