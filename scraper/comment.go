package scraper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Comments on answers (cron/comments.go tells an answer's author why it is not entered):
// one POST /posts/{id}/comments/add per comment, never retried within a cycle (like the
// edit: a write the API may have applied is not repeated blindly), paced so that two
// comments are never sent closer than the site allows.

const methodComment = "posts/{id}/comments/add"

// Bounds of a comment's body, in characters, as the sites enforce them.
const (
	MinCommentChars = 15
	MaxCommentChars = 600
)

// commentGap is the least time between two comments by one account (the site refuses
// faster ones).
const commentGap = 5 * time.Second

// Comment is a comment the API accepted.
type Comment struct {
	CommentID int64  `json:"comment_id"`
	PostID    int64  `json:"post_id"`
	Body      string `json:"body"` // as the site renders it (HTML)
}

// AddComment posts body as a comment on post postID on behalf of the user whose access
// token is given. Nothing is sent when a credential is missing or the body is out of the
// site's bounds.
func (c *Client) AddComment(ctx context.Context, postID int64, body, accessToken string) (*Comment, error) {
	if err := c.CanWrite(accessToken); err != nil {
		return nil, fmt.Errorf("comment on %d: %w", postID, err)
	}
	if n := utf8.RuneCountInString(body); n < MinCommentChars || n > MaxCommentChars {
		return nil, fmt.Errorf("comment on %d: %d characters, outside the site's %d to %d: not sent", postID, n, MinCommentChars, MaxCommentChars)
	}
	form := c.params()
	form.Set("access_token", accessToken)
	form.Set("body", body)
	p, err := c.post(ctx, methodComment, "/posts/"+strconv.FormatInt(postID, 10)+"/comments/add", form)
	c.mu.Lock()
	if c.next == nil {
		c.next = map[string]time.Time{}
	}
	if at := c.clock().Now().Add(commentGap); at.After(c.next[methodComment]) {
		c.next[methodComment] = at
	}
	c.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("comment on %d: %w", postID, err)
	}
	var items []Comment
	if len(p.Items) > 0 && json.Unmarshal(p.Items, &items) == nil && len(items) > 0 {
		return &items[0], nil
	}
	// Posted: a response without the comment is no reason to post it again.
	c.log().Warn("stack exchange API: the comment's response does not hold it", "post", postID)
	return &Comment{PostID: postID}, nil
}

// ErrCommentPrivilege: the account behind the token may not comment on others' posts.
var ErrCommentPrivilege = errors.New("the account behind SE_ACCESS_TOKEN cannot comment on others' posts: it needs 50 reputation on the site")

// CommentAdvice says what a refused comment means and what the host must do, and whether
// every other comment of the cycle would be refused alike (stop: the token or account is
// the problem, or the API throttles).
func CommentAdvice(err error) (advice string, stop bool) {
	var ce *CredentialsError
	if errors.As(err, &ce) {
		return WriteAdvice(err), true
	}
	if errors.Is(err, ErrThrottled) || errors.Is(err, ErrBackoff) || errors.Is(err, ErrQuotaLow) {
		return "the API throttled this host or asked it to wait; the comments wait for a later cycle", true
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return "", false
	}
	msg := strings.ToLower(ae.Message)
	switch ae.ID {
	case 403:
		if strings.Contains(msg, "reputation") || strings.Contains(msg, "privilege") {
			return ErrCommentPrivilege.Error() + " (earn it, or use another account's token: docs/deploy.md)", true
		}
		return "SE_ACCESS_TOKEN lacks the write_access scope: obtain a token with scope write_access,no_expiry (docs/deploy.md)", true
	case 401, 402, 405, 406:
		return WriteAdvice(err), true
	case 409:
		return "the site took this as a duplicate or a comment too soon after another (duplicate_request): it is tried again in a later cycle", true
	case 400:
		return "the site refused the comment's text (bad_parameter); it is not sent again for this revision", false
	case 407:
		return "the site refused the comment (write_failed: the post may be locked or deleted, or the account rate-limited)", false
	}
	return "", false
}
