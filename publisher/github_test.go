package publisher

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// fakeRepo is an in-memory repository behind the endpoints of GitHub's Git Data API that
// the sink uses, speaking its JSON.
type fakeRepo struct {
	mu      sync.Mutex
	head    string
	commits map[string]fakeCommit
	trees   map[string]map[string]string // tree sha → path → content
	auth    []string
}

type fakeCommit struct {
	tree, parent, message string
}

func sum(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func treeSHA(t map[string]string) string {
	var keys []string
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k, t[k])
	}
	return sum(parts...)
}

func newFakeRepo() *fakeRepo {
	r := &fakeRepo{commits: map[string]fakeCommit{}, trees: map[string]map[string]string{}}
	root := map[string]string{"README.md": "hello"}
	ts := treeSHA(root)
	r.trees[ts] = root
	r.head = sum("root")
	r.commits[r.head] = fakeCommit{tree: ts, message: "initial"}
	return r
}

func (r *fakeRepo) ServeHTTP(w http.ResponseWriter, q *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, q.Header.Get("Authorization"))
	w.Header().Set("Content-Type", "application/json")
	p := strings.TrimPrefix(q.URL.Path, "/api/v3")
	switch {
	case q.Method == "GET" && p == "/repos/o/r/git/ref/heads/main":
		json.NewEncoder(w).Encode(map[string]any{"ref": "refs/heads/main", "object": map[string]string{"sha": r.head, "type": "commit"}})
	case q.Method == "GET" && strings.HasPrefix(p, "/repos/o/r/git/commits/"):
		c, ok := r.commits[strings.TrimPrefix(p, "/repos/o/r/git/commits/")]
		if !ok {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"message":"Not Found"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"sha": strings.TrimPrefix(p, "/repos/o/r/git/commits/"), "tree": map[string]string{"sha": c.tree}, "message": c.message})
	case q.Method == "POST" && p == "/repos/o/r/git/trees":
		var body struct {
			BaseTree string `json:"base_tree"`
			Tree     []struct{ Path, Mode, Type, Content string }
		}
		json.NewDecoder(q.Body).Decode(&body)
		t := map[string]string{}
		for k, v := range r.trees[body.BaseTree] {
			t[k] = v
		}
		for _, e := range body.Tree {
			t[e.Path] = e.Content
		}
		ts := treeSHA(t)
		r.trees[ts] = t
		json.NewEncoder(w).Encode(map[string]any{"sha": ts})
	case q.Method == "POST" && p == "/repos/o/r/git/commits":
		var body struct {
			Message string
			Tree    string
			Parents []string
		}
		json.NewDecoder(q.Body).Decode(&body)
		c := fakeCommit{tree: body.Tree, parent: body.Parents[0], message: body.Message}
		s := sum(c.tree, c.parent, c.message)
		r.commits[s] = c
		w.WriteHeader(201)
		json.NewEncoder(w).Encode(map[string]any{"sha": s, "tree": map[string]string{"sha": c.tree}})
	case q.Method == "PATCH" && p == "/repos/o/r/git/refs/heads/main":
		var body struct {
			SHA   string
			Force bool
		}
		json.NewDecoder(q.Body).Decode(&body)
		if r.commits[body.SHA].parent != r.head && !body.Force {
			w.WriteHeader(422)
			fmt.Fprint(w, `{"message":"Update is not a fast forward"}`)
			return
		}
		r.head = body.SHA
		json.NewEncoder(w).Encode(map[string]any{"ref": "refs/heads/main", "object": map[string]string{"sha": r.head}})
	default:
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"message":"Not Found: %s %s"}`, q.Method, p)
	}
}

func TestGitHubSink(t *testing.T) {
	repo := newFakeRepo()
	srv := httptest.NewServer(repo)
	defer srv.Close()
	g, err := NewGitHub("o", "r", "main", "leaderboards", "tok", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	files := map[string][]byte{"forty.md": []byte("# table\n"), "forty.json": []byte("{}\n")}
	c1, err := g.Publish(ctx, files, "forty: run 1")
	if err != nil {
		t.Fatal(err)
	}
	if repo.head != c1 || repo.commits[c1].message != "forty: run 1" {
		t.Fatalf("head %s, commit %s: %+v", repo.head, c1, repo.commits[c1])
	}
	tree := repo.trees[repo.commits[c1].tree]
	if tree["leaderboards/forty.md"] != "# table\n" || tree["README.md"] != "hello" {
		t.Errorf("tree after publish: %v", tree)
	}
	// Same files again: no new commit.
	c2, err := g.Publish(ctx, files, "forty: run 2")
	if err != nil || c2 != c1 || len(repo.commits) != 2 {
		t.Errorf("republishing the same files made a commit: %s %v (%d commits)", c2, err, len(repo.commits))
	}
	for _, a := range repo.auth {
		if a != "Bearer tok" {
			t.Fatalf("request without the token: %q", a)
		}
	}
	// Someone pushes between our read and our update: we fail, we do not overwrite.
	repo.mu.Lock()
	other := sum("other")
	repo.commits[other] = fakeCommit{tree: repo.commits[c1].tree, parent: c1, message: "host's own edit"}
	repo.mu.Unlock()
	files["forty.md"] = []byte("# table 2\n")
	orig := repo.ServeHTTP
	raced := false
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		if q.Method == "PATCH" && !raced {
			raced = true
			repo.mu.Lock()
			repo.head = other
			repo.mu.Unlock()
		}
		orig(w, q)
	})
	if _, err := g.Publish(ctx, files, "forty: run 3"); err == nil || !strings.Contains(err.Error(), "fast forward") {
		t.Errorf("a non-fast-forward update was not reported: %v", err)
	}
	if repo.head != other {
		t.Errorf("the concurrent commit was overwritten")
	}
}

func TestGitHubSinkNeedsToken(t *testing.T) {
	if _, err := NewGitHub("o", "r", "main", "", "", ""); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("err = %v", err)
	}
}
