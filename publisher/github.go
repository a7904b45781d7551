package publisher

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
)

// GitHub publishes leaderboards to a repository as one commit per publication, through the
// Git Data API (blobs in one tree, one commit, a fast-forward of the branch), so a host's
// history shows one commit per run and never a half-updated set of files.
type GitHub struct {
	Owner, Repo, Branch string
	Dir                 string // folder in the repository
	client              *github.Client
}

// NewGitHub makes a GitHub sink. baseURL is empty for github.com, or an API root (GitHub
// Enterprise, or a test server). The token needs contents:write on the repository.
func NewGitHub(owner, repo, branch, dir, token, baseURL string) (*GitHub, error) {
	if owner == "" || repo == "" {
		return nil, fmt.Errorf("github sink: owner and repo are required")
	}
	if token == "" {
		return nil, fmt.Errorf("github sink %s/%s: GITHUB_TOKEN is not set", owner, repo)
	}
	c := github.NewClient(nil).WithAuthToken(token)
	if baseURL != "" {
		u, err := url.Parse(strings.TrimSuffix(baseURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("github sink: base url: %w", err)
		}
		c.BaseURL = u
	}
	if branch == "" {
		branch = "main"
	}
	return &GitHub{Owner: owner, Repo: repo, Branch: branch, Dir: dir, client: c}, nil
}

func (g *GitHub) Target() string {
	return fmt.Sprintf("github:%s/%s@%s/%s", g.Owner, g.Repo, g.Branch, g.Dir)
}

// Publish commits the files on top of the branch head. If the tree comes out identical to
// the head's, nothing is committed and the head's id is returned.
func (g *GitHub) Publish(ctx context.Context, files map[string][]byte, message string) (string, error) {
	ref, _, err := g.client.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+g.Branch)
	if err != nil {
		return "", fmt.Errorf("%s: read branch: %w", g.Target(), err)
	}
	head, _, err := g.client.Git.GetCommit(ctx, g.Owner, g.Repo, ref.GetObject().GetSHA())
	if err != nil {
		return "", fmt.Errorf("%s: read head commit: %w", g.Target(), err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var entries []*github.TreeEntry
	for _, n := range names {
		entries = append(entries, &github.TreeEntry{
			Path: github.String(path.Join(g.Dir, n)), Mode: github.String("100644"),
			Type: github.String("blob"), Content: github.String(string(files[n])),
		})
	}
	tree, _, err := g.client.Git.CreateTree(ctx, g.Owner, g.Repo, head.GetTree().GetSHA(), entries)
	if err != nil {
		return "", fmt.Errorf("%s: create tree: %w", g.Target(), err)
	}
	if tree.GetSHA() == head.GetTree().GetSHA() {
		return head.GetSHA(), nil
	}
	commit, _, err := g.client.Git.CreateCommit(ctx, g.Owner, g.Repo, &github.Commit{
		Message: github.String(message), Tree: tree, Parents: []*github.Commit{{SHA: head.SHA}},
	}, nil)
	if err != nil {
		return "", fmt.Errorf("%s: create commit: %w", g.Target(), err)
	}
	// Not forced: if someone pushed meanwhile the update fails and the next cycle retries
	// on top of their commit, instead of erasing it.
	if _, _, err := g.client.Git.UpdateRef(ctx, g.Owner, g.Repo, &github.Reference{
		Ref: github.String("refs/heads/" + g.Branch), Object: &github.GitObject{SHA: commit.SHA},
	}, false); err != nil {
		return "", fmt.Errorf("%s: move branch to %s: %w", g.Target(), commit.GetSHA(), err)
	}
	return commit.GetSHA(), nil
}
