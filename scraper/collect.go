package scraper

import "log/slog"

// collector gathers the answers of one question page by page, the one way both the live
// client and a replayed snapshot do it (a recorded snapshot holds the raw pages, so it
// must replay what the live fetch made of them): an item of another question is dropped
// and logged, since it must not enter this question's challenge; an answer seen on an
// earlier page is skipped, since an answer undeleted while paging shifts later pages by
// one and repeats an answer (two submissions of one answer would collide with each other).
type collector struct {
	questionID int64
	log        *slog.Logger
	seen       map[int64]bool
	all        []Answer
}

func newCollector(questionID int64, log *slog.Logger) *collector {
	return &collector{questionID: questionID, log: log, seen: map[int64]bool{}}
}

func (c *collector) add(page int, items []Answer) {
	for _, a := range items {
		if a.QuestionID != 0 && a.QuestionID != c.questionID {
			c.log.Warn("stack exchange API returned an answer of another question: dropped",
				"answer", a.AnswerID, "its_question", a.QuestionID, "asked", c.questionID, "page", page)
			continue
		}
		if !c.seen[a.AnswerID] {
			c.seen[a.AnswerID] = true
			c.all = append(c.all, a)
		}
	}
}
