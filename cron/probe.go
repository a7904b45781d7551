package cron

import (
	"context"
	"slices"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/scraper"
)

// probe returns, for the challenges about to run, what the API says of their questions now,
// and which of them must not be fetched: unchanged since their last complete fetch and run,
// or unknown to the API. With a source
// that cannot probe, or when the probe fails, every challenge is fetched.
func (c *Cycle) probe(ctx context.Context, chs []*config.Challenge, force bool) (now map[int64]scraper.QuestionInfo, unchanged map[string]bool) {
	now, unchanged = map[int64]scraper.QuestionInfo{}, map[string]bool{}
	// The live API answers for all challenges in one request, so a check in which nothing
	// changed costs one request in total.
	p, ok := c.Source.(scraper.Prober)
	if !ok || len(chs) == 0 {
		return now, unchanged
	}
	var ids []int64
	for _, ch := range chs {
		ids = append(ids, ch.QuestionID)
	}
	infos, err := p.Probe(ctx, ids)
	if err != nil {
		c.Log.Warn("probe failed; fetching every challenge", "err", err)
		return now, unchanged
	}
	for _, in := range infos {
		now[in.QuestionID] = in
	}
	if force {
		return now, unchanged
	}
	// What the last complete fetch of each question saw; scraper.Changed compares.
	known := map[int64]scraper.QuestionInfo{}
	for _, ch := range chs {
		if count, last, err := c.Store.QuestionState(ctx, ch.Name); err == nil && count >= 0 {
			known[ch.QuestionID] = scraper.QuestionInfo{QuestionID: ch.QuestionID, AnswerCount: count, LastActivityDate: last}
		}
	}
	changed := scraper.Changed(known, infos)
	for _, ch := range chs {
		if _, ok := now[ch.QuestionID]; !ok {
			// The API does not know the question (deleted, or on another site): fetching it
			// would return no answers and retire every bot. Keep the last good data.
			c.Log.Warn("question not returned by the API; keeping the last good data", "challenge", ch.Name, "question", ch.QuestionID)
			unchanged[ch.Name] = true
			continue
		}
		if slices.Contains(changed, ch.QuestionID) {
			continue
		}
		if run, err := c.Store.LastRun(ctx, ch.Name); err == nil && run != nil {
			unchanged[ch.Name] = true
		}
	}
	return now, unchanged
}
