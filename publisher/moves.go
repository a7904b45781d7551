package publisher

import (
	"sort"
	"strconv"
)

// moves compares the board with the previous published one. A bot's change of rank is
// shown when it is news: the bot is new, its answer was edited, the set of bots changed
// (someone entered, left or was edited, which moves others for real), or its tie groups
// before and after do not overlap (the move is outside the noise). The same bots played
// again with another seed therefore report only moves the statistics stand behind.
// It returns the significant movers and edited bots' moves for the changes list.
func moves(b *Board, prev *Board) []Change {
	if prev == nil || prev.SchemaVersion != SchemaVersion {
		return nil
	}
	before := map[string]Row{}
	for _, r := range prev.Rows {
		before[r.Bot] = r
	}
	fieldChanged := len(prev.Rows) != len(b.Rows)
	for _, r := range b.Rows {
		p, ok := before[r.Bot]
		if !ok || p.ContentHash != r.ContentHash {
			fieldChanged = true
		}
	}
	var out []Change
	for i := range b.Rows {
		r := &b.Rows[i]
		p, ok := before[r.Bot]
		if !ok {
			r.Move = &Move{Kind: "new", Why: "new bot"}
			continue
		}
		if p.Rank == r.Rank {
			continue
		}
		why := ""
		switch {
		case p.ContentHash != r.ContentHash:
			why = "edited"
		case p.TieGroup[1] < r.TieGroup[0] || r.TieGroup[1] < p.TieGroup[0]:
			why = "significant"
		case fieldChanged:
			why = "bots changed"
		default:
			continue // noise: the same bots, ranks the statistics cannot tell apart
		}
		kind, places := "up", p.Rank-r.Rank
		if places < 0 {
			kind, places = "down", -places
		}
		r.Move = &Move{Kind: kind, From: p.Rank, Places: places, Why: why}
		if why != "bots changed" {
			out = append(out, Change{Kind: kind, AnswerID: r.AnswerID, Bot: r.Bot, Author: r.Author, From: p.Rank, To: r.Rank})
		}
	}
	return out
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
