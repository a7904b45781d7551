package publisher

import (
	"sort"
	"strconv"
)

// Key is a bot's identity across runs: its answer and its name in it (a class name, a
// title). A name alone is not an identity: when an answer is deleted, another answer's bot
// of the same name may enter under it, and it is a new bot, not the old one moved.
// Built-in bots have answer 0.
func (r Row) Key() string { return itoa(r.AnswerID) + "\x00" + r.Bot }

// compare sets the rows' moves against the previous published board and returns the
// board's changes: the fetch's (an answer that is new but did not enter is "not entered",
// not "new"), bots newly entered or gone that the fetch does not explain, and the moves.
// A first run has nothing to compare with and says so (Board.Since) instead of calling
// every answer new.
func compare(b *Board, in Input) []Change {
	prev := in.Previous
	if prev != nil && prev.SchemaVersion != SchemaVersion {
		prev = nil // a board of another format: its rows may not mean what ours do
	}
	b.Since = &Since{FirstRun: in.FirstRun}
	out := FetchChanges(b, in.Changes, in.FirstRun)
	explained := map[int64]string{} // answer → the kind of fetch change that covers it
	for _, c := range out {
		explained[c.AnswerID] = c.Kind
	}
	if prev == nil {
		return out
	}
	b.Since.PreviousRun = prev.Run.ID
	before := map[string]Row{}
	for _, r := range prev.Rows {
		before[r.Key()] = r
	}
	now := map[string]bool{}
	changed := map[string]bool{} // bots entered, edited (keyed as now) or gone (keyed as before)
	for _, r := range b.Rows {
		now[r.Key()] = true
		p, ok := before[r.Key()]
		switch {
		case !ok:
			b.Since.Entered++
			changed[r.Key()] = true
		case p.ContentHash != r.ContentHash:
			b.Since.Edited++
			changed[r.Key()] = true
		}
	}
	for _, p := range prev.Rows {
		if !now[p.Key()] {
			b.Since.Left++
			changed[p.Key()] = true
			if k := explained[p.AnswerID]; k == "" || k == "new" || k == "not entered" || k == "restored" {
				out = append(out, Change{Kind: "left", AnswerID: p.AnswerID, Bot: p.Bot, Author: p.Author})
			}
		}
	}
	sameStats := prev.Statistics.Method == b.Statistics.Method
	for i := range b.Rows {
		r := &b.Rows[i]
		p, ok := before[r.Key()]
		if !ok {
			r.Move = &Move{Kind: "new", Why: "new bot"}
			if explained[r.AnswerID] != "new" {
				// entered from an answer the fetch did not call new: edited to enter, or its
				// name freed by another answer's deletion
				out = append(out, Change{Kind: "new", AnswerID: r.AnswerID, Bot: r.Bot, Author: r.Author})
			}
			continue
		}
		// The field under the bot: did any other bot enter, leave or change? Then its rank
		// and score moved with the field, and a move says nothing about the bot itself.
		others := len(changed)
		if changed[r.Key()] {
			others--
		}
		if p.Rank == r.Rank || others > 0 {
			continue
		}
		if !disjoint(rangeOf(p), rangeOf(*r)) && !(sameStats && intervalsApart(p.Interval, r.Interval)) {
			continue // noise: ranks the statistics cannot tell apart, a score within them
		}
		why := "significant"
		if p.ContentHash != r.ContentHash {
			why = "edited"
		}
		kind, places := "up", p.Rank-r.Rank
		if places < 0 {
			kind, places = "down", -places
		}
		r.Move = &Move{Kind: kind, From: p.Rank, Places: places, Why: why}
		out = append(out, Change{Kind: kind, AnswerID: r.AnswerID, Bot: r.Bot, Author: r.Author, From: p.Rank, To: r.Rank})
	}
	return out
}

// FetchChanges turns a fetch's changes (answers new, edited, withdrawn, restored on the
// site) into the board's: an answer new (or restored) on the site that has no bot on the
// board is "not entered", not "new". On a first run (firstRun) new answers are left out:
// the page says it is the first, and the Not entered list has the answers that did not
// enter. The cycle uses it for a board it publishes again too (not a first run then: the
// answers are new since it).
func FetchChanges(b *Board, changes []Change, firstRun bool) []Change {
	entered := map[int64]bool{}
	for _, r := range b.Rows {
		if r.AnswerID != 0 {
			entered[r.AnswerID] = true
		}
	}
	var out []Change
	for _, c := range changes {
		if firstRun && c.Kind == "new" {
			continue // on a first run every answer is new: the page says it is the first instead
		}
		if (c.Kind == "new" || c.Kind == "restored") && !entered[c.AnswerID] {
			c.Kind = "not entered" // new to the site, not to the board: see Not entered
		}
		out = append(out, c)
	}
	return out
}

// rangeOf is a row's rank range; a board written before rank ranges has its tie group.
func rangeOf(r Row) [2]int {
	if r.RankRange != [2]int{} {
		return r.RankRange
	}
	return r.TieGroup
}

func disjoint(a, b [2]int) bool { return a[1] < b[0] || b[1] < a[0] }

// intervalsApart says two runs' intervals of a bot's score do not overlap: its score moved
// by more than the noise of either run.
func intervalsApart(a, b *Interval) bool {
	return a != nil && b != nil && (a.High < b.Low || b.High < a.Low)
}

// maxHistory bounds the runs the board carries for its chart.
const maxHistory = 30

// history appends this run's scores to the earlier runs' (oldest first, the last
// maxHistory runs).
func history(past []HistoryRun, b *Board, prev *Board) []HistoryRun {
	// The store keeps each run's scores; its intervals travel from board to board.
	kept := map[int64]map[string]Interval{}
	if prev != nil {
		for _, h := range prev.History {
			kept[h.Run] = h.Intervals
		}
	}
	out := make([]HistoryRun, 0, len(past)+1)
	for _, h := range past {
		if h.Run != b.Run.ID {
			if h.Intervals == nil {
				h.Intervals = kept[h.Run]
			}
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	now := HistoryRun{Run: b.Run.ID, Date: b.Run.Date, Scores: map[string]float64{}}
	for _, r := range b.Rows {
		now.Scores[r.Bot] = r.Score
		if r.Interval != nil {
			if now.Intervals == nil {
				now.Intervals = map[string]Interval{}
			}
			now.Intervals[r.Bot] = *r.Interval
		}
	}
	out = append(out, now)
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
