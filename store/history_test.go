package store

import (
	"context"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/scraper"
)

// Every finished run's standings are the history: oldest first, the last n runs, failed
// runs left out; revisions carry their hash and edit time.
func TestScoreHistoryAndRevisions(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	edited := sub(1, "x")
	edited.Edited = 1549000123
	if _, err := s.RecordAnswers(ctx, "forty", 177765, []scraper.Submission{edited}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 4 {
		id, err := s.StartRun(ctx, "forty", uint64(i), 1, "set", 10)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if i == 2 {
			s.FailRun(ctx, id, "boom")
			continue
		}
		st := []Standing{{Rank: 1, Bot: "A", AnswerID: 1, Score: float64(10 + i)}, {Rank: 2, Bot: "B", Score: float64(i)}}
		if err := s.FinishRun(ctx, id, &engine.Result{Games: 10}, st); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.ScoreHistory(ctx, "forty", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].RunID != ids[1] || h[1].RunID != ids[3] || h[1].Scores["A"] != 13 || h[0].Scores["B"] != 1 {
		t.Errorf("history %+v, want runs %d and %d (the failed run %d left out)", h, ids[1], ids[3], ids[2])
	}
	revs, err := s.CurrentRevisions(ctx, "forty")
	if err != nil {
		t.Fatal(err)
	}
	if r := revs[1]; r.ID == 0 || r.Hash != edited.Hash || r.Edited != 1549000123 {
		t.Errorf("revision %+v", r)
	}
}
