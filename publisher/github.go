package publisher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kothd/kothd/internal/httpclient"
)

// GitHub publishes leaderboards to a repository as one commit per publication, through the
// Git Data API (blobs in one tree, one commit, a fast-forward of the branch), so a host's
// history shows one commit per run and never a half-updated set of files.
//
// Every publication has a deadline; within it, server errors and network failures are
// retried with backoff, rate limits are waited out as GitHub says, and a branch that moved
// meanwhile is read again. What cannot be retried is explained (token, permissions, names).
type GitHub struct {
	Owner, Repo, Branch string
	Dir                 string // folder in the repository

	// Deadline bounds one publication (or check): every request, retry and wait. A wait
	// that would pass it fails the publication at once; the next cycle retries.
	Deadline time.Duration
	// MaxWait clamps one wait GitHub asks for (Retry-After, X-RateLimit-Reset): a value
	// beyond it is garbled or absurd, and is logged.
	MaxWait time.Duration
	// HTTP makes the requests; its timeouts bound each one.
	HTTP *http.Client
	Log  *slog.Logger

	token string
	base  *url.URL // nil for api.github.com
	sleep func(ctx context.Context, d time.Duration) error
}

// Defaults of the GitHub sink's bounds.
const (
	DefaultGitHubDeadline = 5 * time.Minute
	DefaultGitHubMaxWait  = 15 * time.Minute
)

// NewGitHub makes a GitHub sink. baseURL is empty for github.com, or an API root (GitHub
// Enterprise, or a test server). The token needs contents:write on the repository.
func NewGitHub(owner, repo, branch, dir, token, baseURL string) (*GitHub, error) {
	if owner == "" || repo == "" {
		return nil, fmt.Errorf("github sink: owner and repo are required")
	}
	if token == "" {
		return nil, fmt.Errorf("github sink %s/%s: GITHUB_TOKEN is not set", owner, repo)
	}
	// GitHub refuses a tree path with a leading slash or an empty component, after the
	// preflight passed and every cycle: "/boards", "boards/" and "./boards" mean "boards".
	clean := path.Clean("/" + dir)[1:]
	if slices.Contains(strings.Split(dir, "/"), "..") {
		return nil, fmt.Errorf("github sink %s/%s: path %q leaves the repository", owner, repo, dir)
	}
	g := &GitHub{Owner: owner, Repo: repo, Branch: branch, Dir: clean, token: token,
		Deadline: DefaultGitHubDeadline, MaxWait: DefaultGitHubMaxWait, HTTP: httpclient.New(httpclient.Default)}
	if baseURL != "" {
		u, err := url.Parse(strings.TrimSuffix(baseURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("github sink: base url: %w", err)
		}
		g.base = u
	}
	if g.Branch == "" {
		g.Branch = "main"
	}
	return g, nil
}

func (g *GitHub) Target() string {
	return GitHubTarget(g.Owner, g.Repo, g.Branch, g.Dir)
}

// GitHubTarget is the target name (Target) of the GitHub sink the config's values make,
// for what must name it without making it (status, without a token).
func GitHubTarget(owner, repo, branch, dir string) string {
	if branch == "" {
		branch = "main"
	}
	return fmt.Sprintf("github:%s/%s@%s/%s", owner, repo, branch, path.Clean("/" + dir)[1:])
}

// client is a fresh go-github client per attempt: go-github remembers rate limits and
// refuses requests locally until they reset, by its own clock; the waiting here is ours
// (bounded, clamped, logged), so no attempt inherits that memory.
func (g *GitHub) client() *github.Client {
	c := github.NewClient(g.HTTP).WithAuthToken(g.token)
	if g.base != nil {
		c.BaseURL = g.base
	}
	return c
}

// Publish commits the files on top of the branch head. If the tree comes out identical to
// the head's, nothing is committed and the head's id is returned. In an empty repository
// the first file is created through the contents API (the Git Data API refuses to work
// there) and the rest follow in the usual commit.
func (g *GitHub) Publish(ctx context.Context, files map[string][]byte, message string) (string, error) {
	if len(files) == 0 {
		return "", fmt.Errorf("%s: nothing to publish", g.Target())
	}
	ctx, cancel := context.WithTimeout(ctx, durOr(g.Deadline, DefaultGitHubDeadline))
	defer cancel()
	var sha string
	err := g.retry(ctx, "publish", func(c *github.Client) error {
		var err error
		sha, err = g.publishOnce(ctx, c, files, message)
		return err
	})
	return sha, err
}

func (g *GitHub) publishOnce(ctx context.Context, c *github.Client, files map[string][]byte, message string) (string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	ref, _, err := c.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+g.Branch)
	// In an empty repository the contents API makes a first commit of one file; the
	// publication's commit then replaces it (no parent, the branch moved by force: nobody
	// else has seen it), so the history starts with one commit holding every file, as any
	// later publication makes one.
	fresh := isEmptyRepo(err)
	if fresh {
		first := names[0]
		g.log().Info("github repository is empty: creating its first commit", "target", g.Target(), "file", first)
		if _, _, err := c.Repositories.CreateFile(ctx, g.Owner, g.Repo, path.Join(g.Dir, first), &github.RepositoryContentFileOptions{
			Message: github.String(message), Content: files[first], Branch: github.String(g.Branch),
		}); err != nil {
			return "", fmt.Errorf("create the first commit of the empty repository: %w", err)
		}
		ref, _, err = c.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+g.Branch)
	}
	if err != nil {
		return "", fmt.Errorf("read branch: %w", err)
	}
	head, _, err := c.Git.GetCommit(ctx, g.Owner, g.Repo, ref.GetObject().GetSHA())
	if err != nil {
		return "", fmt.Errorf("read head commit: %w", err)
	}
	var entries []*github.TreeEntry
	for _, n := range names {
		entries = append(entries, &github.TreeEntry{
			Path: github.String(path.Join(g.Dir, n)), Mode: github.String("100644"),
			Type: github.String("blob"), Content: github.String(string(files[n])),
		})
	}
	tree, _, err := c.Git.CreateTree(ctx, g.Owner, g.Repo, head.GetTree().GetSHA(), entries)
	if err != nil {
		return "", fmt.Errorf("create tree: %w", err)
	}
	if tree.GetSHA() == head.GetTree().GetSHA() {
		return head.GetSHA(), nil
	}
	parents := []*github.Commit{{SHA: head.SHA}}
	if fresh {
		parents = []*github.Commit{}
	}
	commit, _, err := c.Git.CreateCommit(ctx, g.Owner, g.Repo, &github.Commit{
		Message: github.String(message), Tree: tree, Parents: parents,
	}, nil)
	if err != nil {
		return "", fmt.Errorf("create commit: %w", err)
	}
	// Not forced (but over the first commit this publication made): if someone pushed
	// meanwhile the update fails, and the retry builds on top of their commit instead of
	// erasing it.
	if _, _, err := c.Git.UpdateRef(ctx, g.Owner, g.Repo, &github.Reference{
		Ref: github.String("refs/heads/" + g.Branch), Object: &github.GitObject{SHA: commit.SHA},
	}, fresh); err != nil {
		return "", fmt.Errorf("move branch to %s: %w", commit.GetSHA(), err)
	}
	return commit.GetSHA(), nil
}

// CheckWrite proves cheaply, before anything is played, that the token can publish: the
// repository is visible and grants push, the branch exists (or the repository is empty,
// and the first publication will create it), and a blob can be written (the one write
// that changes nothing anyone sees; it proves a fine-grained token's Contents: write,
// which the repository's permissions do not show). Same deadline and retries as Publish.
func (g *GitHub) CheckWrite(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, durOr(g.Deadline, DefaultGitHubDeadline))
	defer cancel()
	return g.retry(ctx, "check write access", func(c *github.Client) error {
		repo, _, err := c.Repositories.Get(ctx, g.Owner, g.Repo)
		if err != nil {
			return fmt.Errorf("read repository: %w", err)
		}
		if !repo.GetPermissions()["push"] {
			return permanent(fmt.Errorf("the token can read %s/%s but not write to it: %s", g.Owner, g.Repo, scopeHint))
		}
		_, _, err = c.Git.GetRef(ctx, g.Owner, g.Repo, "heads/"+g.Branch)
		if isEmptyRepo(err) {
			return nil
		}
		if status(err) == http.StatusNotFound {
			return permanent(fmt.Errorf("branch %q does not exist in %s/%s: create it, or set github.branch: %w", g.Branch, g.Owner, g.Repo, err))
		}
		if err != nil {
			return fmt.Errorf("read branch: %w", err)
		}
		if _, _, err := c.Git.CreateBlob(ctx, g.Owner, g.Repo, &github.Blob{
			Content: github.String("kothd write check\n"), Encoding: github.String("utf-8"),
		}); err != nil {
			return fmt.Errorf("write a blob: %w", err)
		}
		return nil
	})
}

func isEmptyRepo(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusConflict &&
		strings.Contains(strings.ToLower(er.Message), "repository is empty")
}

func (g *GitHub) log() *slog.Logger {
	if g.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return g.Log
}

func durOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
