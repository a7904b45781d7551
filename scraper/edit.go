package scraper

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Reading a question's markdown and writing it back: the question's own leaderboard
// (cron/question.go). Reads go through get like every other call; the edit is one POST,
// never retried within a cycle (a write the API may already have applied is not repeated
// blindly; the next cycle tries again), and waits for backoff and throttles like the rest.

// API method names of the write path, keys of the backoff table.
const (
	methodFilter = "filters/create"
	methodEdit   = "questions/{id}/edit"
)

// MaxBodyChars is the longest question body the sites accept, in characters.
const MaxBodyChars = 30000

// Question is a question as an edit needs it: the text fields decoded (DecodeEntities),
// exactly as its author typed them.
type Question struct {
	QuestionID       int64
	Title            string
	Tags             []string
	BodyMarkdown     string
	LastActivityDate int64
	LastEditDate     int64
}

type questionItem struct {
	QuestionID       int64    `json:"question_id"`
	Title            string   `json:"title"`
	Tags             []string `json:"tags"`
	BodyMarkdown     *string  `json:"body_markdown"`
	LastActivityDate int64    `json:"last_activity_date"`
	LastEditDate     int64    `json:"last_edit_date"`
}

// QuestionEdit is what an edit sends: the whole new body, the title and tags (unchanged
// ones too: the API replaces all three) and the comment shown in the revision history.
type QuestionEdit struct {
	Body    string
	Title   string
	Tags    []string
	Comment string
}

// ErrNoWriteCredentials: a write (an edit, a comment) needs both the application key and a
// user's access token. The errors returned are *CredentialsError, naming what is missing.
var ErrNoWriteCredentials = errors.New("a write needs the application key (SE_API_KEY) and an access token with write_access (SE_ACCESS_TOKEN)")

// CredentialsError names the credentials a write lacks; errors.Is(err, ErrNoWriteCredentials).
type CredentialsError struct {
	Missing []string // "SE_API_KEY", "SE_ACCESS_TOKEN"
}

func (e *CredentialsError) Error() string {
	what := map[string]string{"SE_API_KEY": "the application key (SE_API_KEY, or api_key in the config)", "SE_ACCESS_TOKEN": "an access token with write_access (SE_ACCESS_TOKEN)"}
	var parts []string
	for _, m := range e.Missing {
		parts = append(parts, what[m])
	}
	return "no request made: " + strings.Join(parts, " and ") + " not set"
}

func (e *CredentialsError) Is(target error) bool { return target == ErrNoWriteCredentials }

// CanWrite says, without a request, whether the client has what a write with accessToken
// needs: nil, or a *CredentialsError naming what is missing.
func (c *Client) CanWrite(accessToken string) error {
	var missing []string
	if c.Key == "" {
		missing = append(missing, "SE_API_KEY")
	}
	if accessToken == "" {
		missing = append(missing, "SE_ACCESS_TOKEN")
	}
	if len(missing) > 0 {
		return &CredentialsError{Missing: missing}
	}
	return nil
}

// QuestionMarkdown fetches one question with its body_markdown.
func (c *Client) QuestionMarkdown(ctx context.Context, id int64) (*Question, error) {
	filter, err := c.bodyFilter(ctx)
	if err != nil {
		return nil, fmt.Errorf("question %d: %w", id, err)
	}
	q := c.params()
	q.Set("filter", filter)
	// One id per call: the API has been seen to encode text fields twice in vectorised calls.
	_, p, err := c.get(ctx, methodQuestions, "/questions/"+strconv.FormatInt(id, 10), q)
	if err != nil {
		return nil, fmt.Errorf("fetch question %d: %w", id, err)
	}
	return questionFrom(id, p)
}

// EditQuestion replaces the question's body (and sends its title and tags) on behalf of the
// user whose access token is given, and returns the question as the API now has it.
func (c *Client) EditQuestion(ctx context.Context, id int64, e QuestionEdit, accessToken string) (*Question, error) {
	if err := c.CanWrite(accessToken); err != nil {
		return nil, fmt.Errorf("edit question %d: %w", id, err)
	}
	filter, err := c.bodyFilter(ctx)
	if err != nil {
		return nil, fmt.Errorf("edit question %d: %w", id, err)
	}
	form := c.params()
	form.Set("access_token", accessToken)
	form.Set("filter", filter)
	form.Set("body", e.Body)
	form.Set("title", e.Title)
	form.Set("tags", strings.Join(e.Tags, ";"))
	form.Set("comment", e.Comment)
	p, err := c.post(ctx, methodEdit, "/questions/"+strconv.FormatInt(id, 10)+"/edit", form)
	if err != nil {
		return nil, fmt.Errorf("edit question %d: %w", id, err)
	}
	// The edit is done: a response without the question (or without the filter's fields)
	// is not a failure, which would have the next cycle edit again for nothing.
	q, err := questionFrom(id, p)
	if err != nil {
		c.log().Warn("stack exchange API: the edit's response does not hold the question", "question", id, "err", err)
		return nil, nil
	}
	return q, nil
}

func questionFrom(id int64, p *Page) (*Question, error) {
	var items []questionItem
	if len(p.Items) > 0 {
		if err := json.Unmarshal(p.Items, &items); err != nil {
			return nil, fmt.Errorf("question %d: malformed items: %w", id, err)
		}
	}
	for _, it := range items {
		if it.QuestionID != id {
			continue
		}
		if it.BodyMarkdown == nil {
			return nil, fmt.Errorf("question %d: the API sent no body_markdown (filter not applied?)", id)
		}
		tags := make([]string, len(it.Tags))
		for i, t := range it.Tags {
			tags[i] = DecodeEntities(t)
		}
		return &Question{QuestionID: id, Title: DecodeEntities(it.Title), Tags: tags, BodyMarkdown: DecodeEntities(*it.BodyMarkdown),
			LastActivityDate: it.LastActivityDate, LastEditDate: it.LastEditDate}, nil
	}
	return nil, fmt.Errorf("question %d not found by the API (deleted, or on another site?)", id)
}

// bodyFilter is a filter adding question.body_markdown to the default fields, made with
// /filters/create once for the host when the client has a State (filters never change or
// expire: the store keeps it), else once per client.
func (c *Client) bodyFilter(ctx context.Context) (string, error) {
	c.mu.Lock()
	f := c.filter
	c.mu.Unlock()
	if f != "" {
		return f, nil
	}
	key := "filter:" + c.stateBase() + "|question.body_markdown"
	if c.State != nil {
		if f, err := c.State.APIValue(ctx, key); err == nil && f != "" {
			c.mu.Lock()
			c.filter = f
			c.mu.Unlock()
			return f, nil
		}
	}
	q := url.Values{}
	if c.Key != "" {
		q.Set("key", c.Key)
	}
	q.Set("include", "question.body_markdown")
	q.Set("base", "default")
	q.Set("unsafe", "false")
	_, p, err := c.get(ctx, methodFilter, "/filters/create", q)
	if err != nil {
		return "", fmt.Errorf("create a filter with body_markdown: %w", err)
	}
	var items []struct {
		Filter string `json:"filter"`
	}
	if err := json.Unmarshal(p.Items, &items); err != nil || len(items) == 0 || items[0].Filter == "" {
		return "", fmt.Errorf("create a filter with body_markdown: no filter in the response")
	}
	c.mu.Lock()
	c.filter = items[0].Filter
	c.mu.Unlock()
	if c.State != nil {
		// Filters never change or expire: made once for the host, not once per process.
		if err := c.State.SetAPIValue(ctx, key, items[0].Filter); err != nil {
			c.log().Warn("stack exchange API: the filter was not recorded; the next process makes it again", "err", err)
		}
	}
	return items[0].Filter, nil
}

// post makes one write call: waits for backoff, quota and bans as get does, then a single
// attempt.
func (c *Client) post(ctx context.Context, method, path string, form url.Values) (*Page, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	if err := c.wait(ctx, method); err != nil {
		return nil, err
	}
	u := strings.TrimRight(cmp.Or(c.BaseURL, DefaultBaseURL), "/") + path
	_, p, err := c.attempt(ctx, method, u, form)
	return p, err
}

// WriteAdvice says what the host must do about an error of a write call, or "" when
// nothing but waiting helps (the next cycle tries again).
func WriteAdvice(err error) string {
	var ce *CredentialsError
	if errors.As(err, &ce) {
		return "set " + strings.Join(ce.Missing, " and ") + " in the daemon's environment (/etc/kothd/env; docs/deploy.md) and restart it"
	}
	if errors.Is(err, ErrNoWriteCredentials) {
		return "set SE_API_KEY and SE_ACCESS_TOKEN in the daemon's environment (/etc/kothd/env; docs/deploy.md) and restart it"
	}
	if errors.Is(err, ErrThrottled) {
		return "the API throttled this host; kothd waits until the ban ends (nothing to do unless it recurs: then lower how often kothd runs)"
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return ""
	}
	switch ae.ID {
	case 401, 402, 406: // access_token_required, invalid_access_token, access_token_compromised
		return "SE_ACCESS_TOKEN is missing, expired, revoked or compromised: obtain a new token (docs/deploy.md), put it in /etc/kothd/env and restart kothd"
	case 403: // access_denied
		return "SE_ACCESS_TOKEN lacks the write_access scope: obtain a token with scope write_access,no_expiry (docs/deploy.md)"
	case 405: // key_required
		return "the application key is missing: set SE_API_KEY (or api_key) to the key of the Stack Apps application the token was made for"
	case 407: // write_failed
		return "the site refused the edit (the account may lack the reputation or privilege to edit this question, the post may be locked, or the edit is invalid): check the question and the account behind SE_ACCESS_TOKEN"
	case 400:
		return "the API refused a parameter; if it names the key, check SE_API_KEY"
	}
	return ""
}
