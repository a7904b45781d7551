package fakegithub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The wire side: authentication, visibility, faults, then the repository's endpoints.

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/api/v3")
	s.requests = append(s.requests, r.Method+" "+p)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Reset", "4102444800")
	h.Set("X-RateLimit-Resource", "core")
	if f := s.outage; f != nil {
		for k, v := range f.Header {
			h.Set(k, v)
		}
		w.WriteHeader(f.Status)
		fmt.Fprint(w, f.Body)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		reply(w, 401, body("Bad credentials", "https://docs.github.com/rest"))
		return
	}
	repo := "/repos/" + s.Owner + "/" + s.Repo
	if s.hidden || (p != repo && !strings.HasPrefix(p, repo+"/")) {
		reply(w, 404, body("Not Found", "https://docs.github.com/rest"))
		return
	}
	sub := strings.TrimPrefix(p, repo)
	for i, f := range s.faults {
		if (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(sub, f.Path) {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			if f.Race != "" {
				s.push1(f.Race, "someone else's commit", map[string]string{"OTHER.md": "theirs"})
				break
			}
			if f.Hang {
				s.mu.Unlock()
				// The body read, the server notices the client hanging up (and ends the
				// request's context); the minute is a failsafe for the test's Close.
				io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-time.After(time.Minute):
				}
				s.mu.Lock()
				return
			}
			if f.Hangup {
				if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
					c.Close()
				}
				return
			}
			for k, v := range f.Header {
				h.Set(k, v)
			}
			w.WriteHeader(f.Status)
			fmt.Fprint(w, f.Body)
			return
		}
	}
	if r.Method != http.MethodGet && !s.push {
		reply(w, 403, body("Resource not accessible by personal access token", "https://docs.github.com/rest"))
		return
	}
	empty := len(s.branches) == 0
	switch {
	case r.Method == "GET" && sub == "":
		s.repository(w)
	case r.Method == "PUT" && strings.HasPrefix(sub, "/contents/"):
		s.createFile(w, r, strings.TrimPrefix(sub, "/contents/"))
	case empty && strings.HasPrefix(sub, "/git/"):
		reply(w, 409, body("Git Repository is empty.", "https://docs.github.com/rest/git"))
	case r.Method == "GET" && strings.HasPrefix(sub, "/git/ref/heads/"):
		branch := strings.TrimPrefix(sub, "/git/ref/heads/")
		head, ok := s.branches[branch]
		if !ok {
			reply(w, 404, body("Not Found", "https://docs.github.com/rest/git/refs#get-a-reference"))
			return
		}
		reply(w, 200, ref(branch, head))
	case r.Method == "GET" && strings.HasPrefix(sub, "/git/commits/"):
		id := strings.TrimPrefix(sub, "/git/commits/")
		c, ok := s.commits[id]
		if !ok {
			reply(w, 404, body("Not Found", "https://docs.github.com/rest/git/commits#get-a-commit"))
			return
		}
		reply(w, 200, commitJSON(id, c))
	case r.Method == "POST" && sub == "/git/blobs":
		var in struct{ Content string }
		json.NewDecoder(r.Body).Decode(&in)
		reply(w, 201, map[string]any{"sha": sum("blob", in.Content)})
	case r.Method == "POST" && sub == "/git/trees":
		s.createTree(w, r)
	case r.Method == "POST" && sub == "/git/commits":
		s.createCommit(w, r)
	case r.Method == "PATCH" && strings.HasPrefix(sub, "/git/refs/heads/"):
		s.updateRef(w, r, strings.TrimPrefix(sub, "/git/refs/heads/"))
	default:
		reply(w, 404, body("Not Found", "https://docs.github.com/rest"))
	}
}

func reply(w http.ResponseWriter, status int, v any) {
	w.WriteHeader(status)
	if s, ok := v.(string); ok {
		fmt.Fprint(w, s)
		return
	}
	json.NewEncoder(w).Encode(v)
}

func ref(branch, sha string) map[string]any {
	return map[string]any{"ref": "refs/heads/" + branch, "object": map[string]string{"sha": sha, "type": "commit"}}
}

func commitJSON(id string, c Commit) map[string]any {
	m := map[string]any{"sha": id, "tree": map[string]string{"sha": c.Tree}, "message": c.Message}
	if c.Parent != "" {
		m["parents"] = []map[string]string{{"sha": c.Parent}}
	}
	return m
}

func (s *Server) repository(w http.ResponseWriter) {
	reply(w, 200, map[string]any{
		"id": 1, "name": s.Repo, "full_name": s.Owner + "/" + s.Repo, "private": false,
		"default_branch": "main", "size": len(s.commits),
		"permissions": map[string]bool{"admin": false, "maintain": false, "push": s.push, "triage": s.push, "pull": true},
	})
}

func (s *Server) createTree(w http.ResponseWriter, r *http.Request) {
	var in struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct{ Path, Mode, Type, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		reply(w, 400, body("Problems parsing JSON", "https://docs.github.com/rest/git/trees#create-a-tree"))
		return
	}
	t := map[string]string{}
	for k, v := range s.trees[in.BaseTree] {
		t[k] = v
	}
	for _, e := range in.Tree {
		if malformed(e.Path) {
			reply(w, 422, body("GitHub API: tree.path contains a malformed path component", "https://docs.github.com/rest/git/trees#create-a-tree"))
			return
		}
		t[e.Path] = e.Content
	}
	reply(w, 201, map[string]any{"sha": s.addTree(t)})
}

func (s *Server) createCommit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string
		Tree    string
		Parents []string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Parents) > 1 {
		reply(w, 422, body("Invalid request.", "https://docs.github.com/rest/git/commits#create-a-commit"))
		return
	}
	c := Commit{Tree: in.Tree, Message: in.Message} // no parent: a root commit
	if len(in.Parents) == 1 {
		c.Parent = in.Parents[0]
	}
	id := sum(c.Tree, c.Parent, c.Message)
	s.commits[id] = c
	reply(w, 201, commitJSON(id, c))
}

func (s *Server) updateRef(w http.ResponseWriter, r *http.Request, branch string) {
	var in struct {
		SHA   string
		Force bool
	}
	json.NewDecoder(r.Body).Decode(&in)
	head, ok := s.branches[branch]
	if !ok {
		reply(w, 422, body("Reference does not exist", "https://docs.github.com/rest/git/refs#update-a-reference"))
		return
	}
	if s.protected[branch] {
		reply(w, 422, body("Protected branch update failed for refs/heads/"+branch+".", "https://docs.github.com/articles/about-protected-branches"))
		return
	}
	if s.commits[in.SHA].Parent != head && !in.Force {
		reply(w, 422, body("Update is not a fast forward", "https://docs.github.com/rest/git/refs#update-a-reference"))
		return
	}
	s.branches[branch] = in.SHA
	reply(w, 200, ref(branch, in.SHA))
}

// createFile is the contents API's create: the one write that works in an empty
// repository, where it makes the first commit (and the branch).
func (s *Server) createFile(w http.ResponseWriter, r *http.Request, path string) {
	var in struct {
		Message string `json:"message"`
		Content []byte `json:"content"` // base64 in JSON
		Branch  string `json:"branch"`
		SHA     string `json:"sha"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Message == "" {
		reply(w, 422, body("Invalid request.", "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"))
		return
	}
	if malformed(path) {
		reply(w, 422, body("path contains a malformed path component", "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"))
		return
	}
	branch := in.Branch
	if branch == "" {
		branch = "main"
	}
	if _, ok := s.branches[branch]; !ok && len(s.branches) > 0 {
		reply(w, 404, body("Branch "+branch+" not found", "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"))
		return
	}
	if _, exists := s.trees[s.commits[s.branches[branch]].Tree][path]; exists && in.SHA == "" {
		reply(w, 422, body(`Invalid request.\n\n"sha" wasn't supplied.`, "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"))
		return
	}
	id := s.push1(branch, in.Message, map[string]string{path: string(in.Content)})
	reply(w, 201, map[string]any{"content": map[string]any{"path": path}, "commit": commitJSON(id, s.commits[id])})
}

// malformed is what GitHub refuses as a path in a tree: a leading or trailing slash, an
// empty, "." or ".." component.
func malformed(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return true
		}
	}
	return false
}
