package archdoc

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, from this package's directory.
var repoRoot = filepath.Join("..", "..")

// notInRepo are the first path elements of paths the docs name that are not the
// repository's: what kothd writes at run time (the bundled config's data_dir and
// output_dir) and the paths of the machine and of /proc a bot sees.
var notInRepo = map[string]bool{
	"data": true, "leaderboards": true, "sys": true, "net": true, "self": true,
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// A repository path: relative, two or more elements, no spaces or schemes; the
	// elements may be placeholders (<game>) or globs (*).
	pathLike = regexp.MustCompile(`^[A-Za-z0-9_.<>*-]+(/[A-Za-z0-9_.<>*…-]+)+/?$`)
	// A first element that stands for a folder the reader chooses (DIR, <challenge>,
	// data_dir).
	placeholder = regexp.MustCompile(`^(<[^>]*>|[A-Z_]+|[a-z]+_dir)$`)
	fileExt     = regexp.MustCompile(`\.(go|py|sh|c|js|java|yaml|yml|json|md|service|txt)$`)
)

// docFiles are the README and every markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// topLevel is the set of the repository's top-level entries.
func topLevel(t *testing.T) map[string]bool {
	t.Helper()
	ents, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	top := map[string]bool{}
	for _, e := range ents {
		top[e.Name()] = true
	}
	return top
}

// exists says whether a repository path exists, placeholders (<x>, *) matching any one
// element and a trailing … any rest.
func exists(root, p string) bool {
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), "/…")
	pat := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(p, "*")
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
	return len(matches) > 0
}

// claimsRepoPath says whether a code span reads as a path of this repository: it starts at
// one of the repository's top-level entries, or names a source file, or a folder the old
// layout had (so a doc left behind by a move is caught).
func claimsRepoPath(s string, top map[string]bool) bool {
	if !pathLike.MatchString(s) || strings.HasPrefix(s, "..") {
		return false
	}
	first, _, _ := strings.Cut(s, "/")
	if notInRepo[first] || placeholder.MatchString(first) {
		return false
	}
	return top[first] || fileExt.MatchString(s) || strings.HasSuffix(s, "/")
}

// TestDocsNameRealPaths fails when the README or a page under docs/ names a repository path
// that does not exist: a code span that reads as a path from the repository's root (or, for
// a bare file name with folders, from the doc's own folder), and every relative link.
func TestDocsNameRealPaths(t *testing.T) {
	top := topLevel(t)
	checked := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot, f)
		dir := filepath.Dir(f)
		inFence := false
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				if !exists(dir, target) {
					t.Errorf("%s:%d links to %s, which does not exist", rel, n+1, m[1])
				}
			}
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				s := m[1]
				if !claimsRepoPath(s, top) {
					continue
				}
				checked++
				if !exists(repoRoot, s) && !exists(dir, s) {
					t.Errorf("%s:%d names `%s`, which is not a path of the repository", rel, n+1, s)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d paths: the scan is broken", checked)
	}
}

// TestClaimsRepoPath pins what the scan takes for a repository path.
func TestClaimsRepoPath(t *testing.T) {
	top := map[string]bool{"runner": true, "cron": true}
	for s, want := range map[string]bool{
		"runner/sandbox":          true,
		"cron/ledger.go":          true,
		"sandbox/bwrap.go":        true, // a source file: checked wherever it claims to be
		"protocol/":               false,
		"old/folder/":             true,
		"/etc/kothd/config.yaml":  false,
		"data/kothd.db":           false,
		"memory.events":           false,
		"leaderboards/forty.json": false,
		"a b/c":                   false,
		"DIR/<site>/answers.json": false,
		"<challenge>/runs/1.json": false,
		"data_dir/live/x.json":    false,
	} {
		if got := claimsRepoPath(s, top); got != want {
			t.Errorf("claimsRepoPath(%q) = %v, want %v", s, got, want)
		}
	}
	if !exists(repoRoot, "engine/<game>/cycle_test.go") || exists(repoRoot, "sandbox/bwrap.go") {
		t.Error("exists does not match placeholders, or finds a path that is gone")
	}
}
