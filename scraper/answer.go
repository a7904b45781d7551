// Package scraper gets a challenge's answers from the Stack Exchange API (or a recorded
// snapshot of it) and turns each answer into a submission: a bot name, a language and files.
// It knows nothing about games.
package scraper

import (
	"context"
	"encoding/json"
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
	CreationDate     int64  `json:"creation_date"` // Unix seconds
	LastActivityDate int64  `json:"last_activity_date"`
	LastEditDate     int64  `json:"last_edit_date"` // 0 when never edited
}

// Owner is the answer's author. Deleted users have UserType "does_not_exist" and no id.
type Owner struct {
	UserID      int64  `json:"user_id"`
	DisplayName string `json:"display_name"` // HTML-escaped by the API
	UserType    string `json:"user_type"`
}

// Name returns the owner's display name, unescaped once, or a stand-in for deleted users.
func (o Owner) Name() string {
	if o.UserType == "does_not_exist" && o.DisplayName == "" {
		return "(deleted user)"
	}
	return html.UnescapeString(o.DisplayName)
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

// APIError is an error envelope returned by the API.
type APIError struct {
	ID      int
	Name    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("stack exchange API error %d %s: %s", e.ID, e.Name, e.Message)
}

// Source gives all answers of a question, oldest first.
type Source interface {
	Answers(ctx context.Context, questionID int64) ([]Answer, error)
}
