// Package fakegithub is a stand-in for the GitHub REST API in tests: an httptest server
// holding one in-memory repository behind the endpoints kothd uses (the repository, the
// Git Data API's refs, commits and trees, and the contents API for a first commit). It
// answers as GitHub does, with the real status codes, JSON bodies (`message`,
// `documentation_url`) and headers (X-RateLimit-*, Retry-After), for the normal case and
// for scripted faults: server errors, primary and secondary rate limits, a plain 429, a
// branch moved by someone else, an empty repository, a bad token, a token without write
// access, a repository the token cannot see.
package fakegithub

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
)

// Server is the fake API with its repository Owner/Repo. Its state may be changed
// between requests with the methods below.
type Server struct {
	*httptest.Server
	Owner, Repo string

	mu        sync.Mutex
	token     string
	branches  map[string]string // branch → head commit; empty map = empty repository
	commits   map[string]Commit
	trees     map[string]map[string]string // tree sha → path → content
	push      bool                         // the token may write (permissions.push)
	hidden    bool                         // private, and the token cannot see it
	faults    []Fault
	outage    *Fault // answers every request while set (SetOutage)
	protected map[string]bool
	requests  []string
}

// Commit is a commit of the fake repository.
type Commit struct {
	Tree, Parent, Message string
}

// New starts a fake for repository o/r whose branch "main" holds one commit with a
// README, accepting the token tok with write access.
func New() *Server {
	s := &Server{Owner: "o", Repo: "r", token: "tok", push: true,
		branches: map[string]string{}, commits: map[string]Commit{}, trees: map[string]map[string]string{}}
	root := map[string]string{"README.md": "hello"}
	ts := s.addTree(root)
	head := sum("root")
	s.commits[head] = Commit{Tree: ts, Message: "initial"}
	s.branches["main"] = head
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the API root a client uses.
func (s *Server) BaseURL() string { return s.URL + "/" }

// Token is the token the fake accepts.
func (s *Server) Token() string { return s.token }

// SetToken changes the accepted token: requests with another one get 401 Bad credentials.
func (s *Server) SetToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = tok
}

// SetPush sets whether the token may write: without, writes get 403 as for a
// fine-grained token with Contents: read-only.
func (s *Server) SetPush(push bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.push = push
}

// SetHidden makes the repository private and invisible to the token: every request gets
// 404, as GitHub answers rather than revealing that a private repository exists.
func (s *Server) SetHidden(hidden bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hidden = hidden
}

// Empty removes every branch and commit, as a repository created without a README.
func (s *Server) Empty() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.branches = map[string]string{}
	s.commits = map[string]Commit{}
	s.trees = map[string]map[string]string{}
}

// SetProtected protects a branch as a branch protection rule would: updates of its ref get
// GitHub's 422 "Protected branch update failed".
func (s *Server) SetProtected(branch string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.protected == nil {
		s.protected = map[string]bool{}
	}
	s.protected[branch] = on
}

// SetOutage answers every request with f (a ServerError, say) until SetOutage(nil): GitHub
// down for longer than any retry.
func (s *Server) SetOutage(f *Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = f
}

// Fail queues faults; each answers one matching request in place of the repository.
func (s *Server) Fail(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Head is the head commit of a branch ("" when it does not exist).
func (s *Server) Head(branch string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.branches[branch]
}

// Commit returns a commit by id.
func (s *Server) Commit(sha string) (Commit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.commits[sha]
	return c, ok
}

// Files returns path → content of a branch's head tree.
func (s *Server) Files(branch string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.trees[s.commits[s.branches[branch]].Tree] {
		out[k] = v
	}
	return out
}

// History returns the messages of a branch's commits, newest first.
func (s *Server) History(branch string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for c := s.branches[branch]; c != ""; c = s.commits[c].Parent {
		out = append(out, s.commits[c].Message)
	}
	return out
}

// Push commits files (path → content) on top of a branch, as someone else would.
func (s *Server) Push(branch, message string, files map[string]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.push1(branch, message, files)
}

func (s *Server) push1(branch, message string, files map[string]string) string {
	head := s.branches[branch]
	t := map[string]string{}
	for k, v := range s.trees[s.commits[head].Tree] {
		t[k] = v
	}
	for k, v := range files {
		t[k] = v
	}
	c := Commit{Tree: s.addTree(t), Parent: head, Message: message}
	id := sum(c.Tree, c.Parent, c.Message)
	s.commits[id] = c
	s.branches[branch] = id
	return id
}

// Requests returns "METHOD /path" of every request served, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) addTree(t map[string]string) string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k, t[k])
	}
	id := sum(parts...)
	s.trees[id] = t
	return id
}

func sum(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
