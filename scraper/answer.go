// Package scraper gets a challenge's answers from the Stack Exchange API (or a recorded
// snapshot of it) and turns each answer into a submission: a bot name, a language and files.
// It knows nothing about games.
//
// The pieces, in the order a cycle uses them:
//
//   - Client talks to the API 2.3: Probe asks, in one request, whether any configured
//     question changed; Answers pages through one question's answers. It honours `backoff`,
//     stops before the daily quota runs out, retries transient failures and decodes
//     gzip/deflate bodies by sniffing them.
//   - Snapshot replays a directory of recorded API bodies (Record writes one).
//   - ExtractAll (or Extract for one answer) turns answers into Submissions under a
//     challenge's Rules; a problem with an answer is a Reject reason, never an error.
//   - Classify compares a fetch with the content hashes the store holds.
package scraper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
)

// Answer is one answer as the API's `withbody` filter returns it (the fields kothd uses).
type Answer struct {
	AnswerID         int64  `json:"answer_id"`
	QuestionID       int64  `json:"question_id"`
	Owner            Owner  `json:"owner"`
	Body             string `json:"body"` // rendered HTML
	Score            int    `json:"score"`
	IsAccepted       bool   `json:"is_accepted"`
	CreationDate     int64  `json:"creation_date"` // Unix seconds
	LastActivityDate int64  `json:"last_activity_date"`
	LastEditDate     int64  `json:"last_edit_date"` // 0 when never edited
}

// Owner is the answer's author. Deleted users have UserType "does_not_exist" and no id.
type Owner struct {
	UserID      int64  `json:"user_id"`
	DisplayName string `json:"display_name"` // HTML-escaped by the API
	UserType    string `json:"user_type"`
	Link        string `json:"link"`
}

// Name returns the owner's display name, unescaped once, or a stand-in for deleted users.
func (o Owner) Name() string {
	if o.DisplayName == "" {
		if o.UserType == "does_not_exist" {
			return "(deleted user)"
		}
		return "(unknown user)"
	}
	return html.UnescapeString(o.DisplayName)
}

// QuestionInfo is what Probe learns about a question: enough to tell whether its answers
// need fetching again. Posting, editing or deleting an answer changes AnswerCount or
// LastActivityDate.
type QuestionInfo struct {
	QuestionID       int64  `json:"question_id"`
	Title            string `json:"title"` // HTML-escaped, as the API returns it
	AnswerCount      int    `json:"answer_count"`
	LastActivityDate int64  `json:"last_activity_date"`
	// LastEditDate is the question's last edit (by anyone; 0 when never edited): the
	// question's own table notices edits by others with it (cron/question.go).
	LastEditDate int64 `json:"last_edit_date"`
}

// Page is one page of an API response: the common wrapper around items.
type Page struct {
	Items          json.RawMessage `json:"items"`
	HasMore        bool            `json:"has_more"`
	QuotaMax       int             `json:"quota_max"`
	QuotaRemaining int             `json:"quota_remaining"`
	Backoff        int             `json:"backoff"`
	ErrorID        int             `json:"error_id"`
	ErrorName      string          `json:"error_name"`
	ErrorMessage   string          `json:"error_message"`
}

// APIError is an error envelope returned by the API (or, with ID 0, a failed HTTP status
// without an envelope).
type APIError struct {
	ID      int    // error_id: 400 bad_parameter, 500 internal_error, 502 throttle_violation, …
	Name    string // error_name
	Message string // error_message
	Status  int    // HTTP status of the response
	Method  string // API method, e.g. "questions/{ids}/answers"
}

func (e *APIError) Error() string {
	if e.ID == 0 {
		return fmt.Sprintf("stack exchange API %s: HTTP status %d", e.Method, e.Status)
	}
	return fmt.Sprintf("stack exchange API %s: error %d %s: %s", e.Method, e.ID, e.Name, e.Message)
}

// Temporary reports whether the same request may succeed if repeated later.
func (e *APIError) Temporary() bool {
	switch e.ID {
	case 500, 503: // internal_error, temporarily_unavailable
		return true
	case 0:
		return e.Status >= 500 || e.Status == 429
	}
	return false
}

// Is makes errors.Is(err, ErrThrottled) true for throttle_violation.
func (e *APIError) Is(target error) bool {
	return target == ErrThrottled && e.ID == 502
}

var (
	// ErrThrottled: the API refused the request for too many requests (throttle_violation),
	// or refused one earlier and its ban has not expired yet. Keep the last good data.
	ErrThrottled = errors.New("stack exchange API throttled this host")
	// ErrQuotaLow: the daily quota fell below the client's threshold; no request was made.
	// Keep the last good data and try again after the quota resets (UTC midnight).
	ErrQuotaLow = errors.New("stack exchange API quota is low")
	// ErrBackoff: the API asked for a pause longer than the client is willing to wait.
	ErrBackoff = errors.New("stack exchange API asked to back off")
)

// Source gives all answers of a question, oldest first. Client and Snapshot implement it.
type Source interface {
	Answers(ctx context.Context, questionID int64) ([]Answer, error)
}

// Prober tells cheaply whether questions changed. Client and Snapshot implement it.
type Prober interface {
	Probe(ctx context.Context, ids []int64) ([]QuestionInfo, error)
}
