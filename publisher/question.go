package publisher

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The question's own leaderboard: a compact table that kothd writes into the question
// between two markers the host put there (cron/question.go decides when; docs/leaderboard.md,
// "The question's own table"). Participants read the question, not the repository.

// The markers a host puts in the question. kothd replaces what lies between them and
// nothing else.
const (
	MarkerOpen  = "<!-- kothd:leaderboard -->"
	MarkerClose = "<!-- /kothd:leaderboard -->"
)

// ErrNoMarkers: the question does not hold the pair of markers (once each, in order).
var ErrNoMarkers = errors.New("the question has no " + MarkerOpen + " … " + MarkerClose + " pair")

// QuestionTable is the markdown kothd puts between the markers: the top rows of the board
// (rank, bot, author, the headline score as the board shows it), then the run, the time and a link to the full board
// (fullURL, when the board is published somewhere public). Participants' words are made
// inert as on the page.
func QuestionTable(b *Board, top int, fullURL string) string {
	rows := b.Rows[:min(top, len(b.Rows))]
	var w strings.Builder
	// The board's column name and numbers, to the board's precision: a participant who
	// follows the link finds the same figures.
	fmt.Fprintf(&w, "| # | Bot | Author | %s |\n|---|---|---|---|\n", text(headline(b)))
	ties := false
	for _, r := range rows {
		name, author := noMarker(cell(r.Bot)), noMarker(cell(r.Author))
		if r.Link != "" {
			name = "[" + name + "](" + r.Link + ")"
		}
		if r.Baseline {
			name += " *(baseline)*"
			author = "—"
		}
		g := rangeOf(r)
		ties = ties || g[0] != g[1]
		fmt.Fprintf(&w, "| %s | %s | %s | %s |\n", rankCell(r), name, author, noMarker(scoreValue(r)))
	}
	w.WriteString("\n")
	if ties {
		w.WriteString("A rank like 3–5 is a rank range: the ranks the statistics allow the bot.  \n")
	}
	shown := fmt.Sprintf("Top %d of %s", len(rows), plural(len(b.Rows), "bot"))
	if len(rows) == len(b.Rows) {
		shown = "All " + plural(len(b.Rows), "bot")
	}
	fmt.Fprintf(&w, "*%s · run %d (seed %d, %s games) · %s UTC · kept up to date by kothd*", shown, b.Run.ID, b.Run.Seed,
		thousands(b.Run.Games), b.Run.Date.UTC().Format("2006-01-02 15:04"))
	if fullURL != "" {
		fmt.Fprintf(&w, " · [full leaderboard](%s)", fullURL)
	}
	w.WriteString("\n")
	return w.String()
}

// ReplaceMarked returns body with the text between the markers replaced by section, every
// other byte unchanged. The section is set off by blank lines (so the table starts a block
// of its own) and written with the body's line ends: a body that uses CRLF gets CRLF.
func ReplaceMarked(body, section string) (string, error) {
	open, close := strings.Count(body, MarkerOpen), strings.Count(body, MarkerClose)
	if open == 0 || close == 0 {
		return "", ErrNoMarkers
	}
	if open > 1 || close > 1 {
		return "", fmt.Errorf("the question holds %d %s and %d %s markers; kothd edits one place only: keep one pair", open, MarkerOpen, close, MarkerClose)
	}
	i := strings.Index(body, MarkerOpen) + len(MarkerOpen)
	j := strings.Index(body, MarkerClose)
	if j < i {
		return "", fmt.Errorf("%s comes before %s in the question: swap them", MarkerClose, MarkerOpen)
	}
	nl := "\n"
	if strings.Contains(body, "\r\n") {
		nl = "\r\n"
	}
	section = strings.ReplaceAll(strings.TrimRight(section, "\n"), "\n", nl)
	return body[:i] + nl + nl + section + nl + nl + body[j:], nil
}

// BodyChars is the length of a body as the site counts it: UTF-16 code units (.NET
// strings), which is at least the number of characters, so the limit is never crossed by
// an emoji counted once.
func BodyChars(body string) int {
	n := 0
	for _, r := range body {
		n += max(1, utf16.RuneLen(r))
	}
	return n
}

// Ranking is what the question's table was last made from: every bot of the board with
// its rank range (tie group) and its answer's content, and how many rows the table shows.
type Ranking struct {
	Top  int         `json:"top"`
	Run  int64       `json:"run"`
	Rows []RankEntry `json:"rows"`
}

// RankEntry is one bot's place in a Ranking.
type RankEntry struct {
	Bot     string `json:"bot"`
	Content string `json:"content,omitempty"` // the answer's content hash
	Lo      int    `json:"lo"`                // rank range: the tie group
	Hi      int    `json:"hi"`
}

// RankingOf is the board's ranking for a table of the top rows.
func RankingOf(b *Board, top int) Ranking {
	r := Ranking{Top: top, Run: b.Run.ID, Rows: make([]RankEntry, len(b.Rows))}
	for i, row := range b.Rows {
		r.Rows[i] = RankEntry{Bot: row.Bot, Content: row.ContentHash, Lo: row.TieGroup[0], Hi: row.TieGroup[1]}
	}
	return r
}

// ChangedFrom says why the question's table should change from prev's, or "" when the
// difference is noise. The rule: only bots in the table (prev's top rows or these) count,
// and one counts when it entered or left the board, its answer was edited, or its rank
// range now does not overlap the one it had (the move is outside the noise, as on the
// board's Δ column). Same bots, ranks the statistics cannot tell apart: no edit.
func (r Ranking) ChangedFrom(prev *Ranking) string {
	if prev == nil || len(prev.Rows) == 0 {
		return "first table"
	}
	if prev.Top != r.Top {
		return fmt.Sprintf("the table's size changed from %d to %d", prev.Top, r.Top)
	}
	before, after := index(prev.Rows), index(r.Rows)
	seen := map[string]bool{}
	// The new table's bots first: the reason names what readers will see.
	for _, e := range append(append([]RankEntry{}, r.Rows[:min(r.Top, len(r.Rows))]...), prev.Rows[:min(prev.Top, len(prev.Rows))]...) {
		if seen[e.Bot] {
			continue
		}
		seen[e.Bot] = true
		p, inPrev := before[e.Bot]
		n, inNow := after[e.Bot]
		switch {
		case !inPrev:
			return fmt.Sprintf("%s entered the board", e.Bot)
		case !inNow:
			return fmt.Sprintf("%s left the board", e.Bot)
		case p.Content != n.Content:
			return fmt.Sprintf("%s's answer was edited", e.Bot)
		case p.Hi < n.Lo || n.Hi < p.Lo:
			return fmt.Sprintf("%s moved from rank %s to %s, outside the noise", e.Bot, span(p), span(n))
		}
	}
	return ""
}

func index(rows []RankEntry) map[string]RankEntry {
	m := make(map[string]RankEntry, len(rows))
	for _, e := range rows {
		m[e.Bot] = e
	}
	return m
}

func span(e RankEntry) string {
	if e.Lo == e.Hi {
		return strconv.Itoa(e.Lo)
	}
	return fmt.Sprintf("%d–%d", e.Lo, e.Hi)
}

// noMarker keeps participants' words from spelling an HTML comment, and so one of the
// question's markers, in the body's source: the page shows "<!--" as written either way,
// but a marker in the source would block the next edit (two pairs of markers).
func noMarker(s string) string { return strings.ReplaceAll(s, "<!--", `<\!--`) }
