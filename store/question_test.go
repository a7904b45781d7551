package store

import (
	"context"
	"testing"
	"time"
)

// A look that did not edit keeps the last edit's table and time; an edit clears what was
// owed.
func TestQuestionBoardState(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	now := time.Unix(1_800_000_000, 0)
	if q, err := s.QuestionBoard(ctx, "forty"); err != nil || q != nil {
		t.Fatalf("before any look: %v %v", q, err)
	}
	if err := s.RecordQuestionEdit(ctx, "forty", now, 3, []byte(`{"top":10}`), "first table", 0); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if err := s.RecordQuestionCheck(ctx, "forty", now, "no-markers", "put the markers back", 4); err != nil {
		t.Fatal(err)
	}
	q, err := s.QuestionBoard(ctx, "forty")
	if err != nil {
		t.Fatal(err)
	}
	if q.EditedAt != 1_800_000_000 || q.EditedRun != 3 || string(q.Ranking) != `{"top":10}` || q.CheckedAt != 1_800_003_600 ||
		q.Outcome != "no-markers" || q.Detail != "put the markers back" || q.OwedRun != 4 {
		t.Fatalf("after a failed look: %+v", q)
	}
	if err := s.RecordQuestionEdit(ctx, "forty", now, 4, []byte(`{"top":5}`), "x moved", 0); err != nil {
		t.Fatal(err)
	}
	if q, _ = s.QuestionBoard(ctx, "forty"); q.OwedRun != 0 || q.Outcome != "edited" || q.EditedRun != 4 {
		t.Fatalf("after an edit: %+v", q)
	}
}
