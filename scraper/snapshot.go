package scraper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
)

// Snapshot replays a recorded snapshot: raw API response bodies stored as
// <dir>/<site>/<question_id>/answers.<page>.json (docs/architecture.md). Pages are read from 1 while
// the previous page said has_more.
type Snapshot struct {
	Dir  string
	Site string
	Log  *slog.Logger // default: discard
}

func (s Snapshot) Answers(ctx context.Context, questionID int64) ([]Answer, error) {
	qdir := filepath.Join(s.Dir, s.Site, strconv.FormatInt(questionID, 10))
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	col := newCollector(questionID, log)
	for page := 1; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(qdir, fmt.Sprintf("answers.%d.json", page))
		body, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) && page == 1 {
			return nil, fmt.Errorf("snapshot has no answers for question %d (looked for %s)", questionID, path)
		}
		if err != nil {
			return nil, fmt.Errorf("read snapshot page %d of question %d: %w", page, questionID, err)
		}
		items, more, err := decodeAnswersPage(body)
		if err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", path, err)
		}
		col.add(page, items)
		if !more {
			return col.all, nil
		}
	}
}

// decodeAnswersPage parses one raw page body (already decompressed).
func decodeAnswersPage(body []byte) ([]Answer, bool, error) {
	var p Page
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, false, fmt.Errorf("malformed API response: %w", err)
	}
	if p.ErrorID != 0 {
		return nil, false, &APIError{ID: p.ErrorID, Name: p.ErrorName, Message: p.ErrorMessage}
	}
	var items []Answer
	if len(p.Items) > 0 {
		if err := json.Unmarshal(p.Items, &items); err != nil {
			return nil, false, fmt.Errorf("malformed answer items: %w", err)
		}
	}
	return items, p.HasMore, nil
}

// Probe computes what the API's Probe would say from the recorded answers: their number and
// the latest activity among them. Questions without a recording are missing from the result.
func (s Snapshot) Probe(ctx context.Context, ids []int64) ([]QuestionInfo, error) {
	// A snapshot directory that is not there is a mistyped --snapshot, not a site whose
	// questions were all deleted: said so, instead of a cycle that "finds" nothing and
	// exits 0.
	if st, err := os.Stat(filepath.Join(s.Dir, s.Site)); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("not a directory")
		}
		return nil, fmt.Errorf("snapshot %s has no recording of site %q: %w", s.Dir, s.Site, err)
	}
	var out []QuestionInfo
	for _, id := range uniqueIDs(ids) {
		first := filepath.Join(s.Dir, s.Site, strconv.FormatInt(id, 10), "answers.1.json")
		if _, err := os.Stat(first); errors.Is(err, os.ErrNotExist) {
			continue
		}
		answers, err := s.Answers(ctx, id)
		if err != nil {
			return nil, err
		}
		info := QuestionInfo{QuestionID: id, AnswerCount: len(answers)}
		for _, a := range answers {
			info.LastActivityDate = max(info.LastActivityDate, a.LastActivityDate, a.LastEditDate, a.CreationDate)
		}
		out = append(out, info)
	}
	return out, nil
}
