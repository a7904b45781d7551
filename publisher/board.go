// Package publisher renders a run's leaderboard (markdown for people, JSON for tools) and
// delivers it to sinks: a directory, a GitHub repository.
package publisher

import (
	"encoding/json"
	"fmt"
	"html"
	"sort"
	"strings"
	"time"

	"kothd/engine"
)

// Board is everything a leaderboard page shows.
type Board struct {
	Challenge  string    `json:"challenge"`
	Title      string    `json:"title"`
	QuestionID int64     `json:"question_id"`
	RunID      int64     `json:"run_id"`
	Seed       uint64    `json:"seed"`
	Date       time.Time `json:"date"`
	Sandbox    string    `json:"sandbox"`
	Result     *engine.Result
	Bots       map[string]BotInfo `json:"bots"` // by leaderboard name
	NotEntered []Rejected         `json:"not_entered"`
	Changes    []string           `json:"changes"` // since the previous run, human-readable
}

// BotInfo is what the page says about a bot beyond its row.
type BotInfo struct {
	Author     string                 `json:"author"`
	AnswerID   int64                  `json:"answer_id"`
	Faults     map[engine.Outcome]int `json:"faults"` // non-OK decisions by outcome
	FirstFault string                 `json:"first_fault,omitempty"`
}

// Rejected is an answer (or one bot of it) that did not enter, with the reason.
type Rejected struct {
	AnswerID int64  `json:"answer_id"`
	Author   string `json:"author"`
	Name     string `json:"name"`
	Status   string `json:"status"` // rejected, failed build, failed validation, excluded
	Reason   string `json:"reason"`
}

// Markdown renders the board.
func Markdown(b *Board) []byte {
	var w strings.Builder
	fmt.Fprintf(&w, "# %s: leaderboard\n\n", b.Title)
	fmt.Fprintf(&w, "Question: https://codegolf.stackexchange.com/q/%d · run %d · seed `%d` · %s",
		b.QuestionID, b.RunID, b.Seed, plural(b.Result.Games, "game"))
	if b.Result.Voided > 0 {
		fmt.Fprintf(&w, " (+%d voided by host faults)", b.Result.Voided)
	}
	fmt.Fprintf(&w, " · %s · %s UTC · sandbox %s\n\n", plural(len(b.Result.Rows), "bot"), b.Date.UTC().Format("2006-01-02 15:04"), b.Sandbox)
	for _, l := range b.Result.Summary {
		fmt.Fprintf(&w, "%s  \n", text(l))
	}
	if len(b.Result.Summary) > 0 {
		w.WriteString("\n")
	}
	w.WriteString("| # | Bot | Author | " + strings.Join(b.Result.Columns, " | ") + " | Faults |\n")
	w.WriteString("|---|---|---|" + strings.Repeat("---|", len(b.Result.Columns)) + "---|\n")
	for i, r := range b.Result.Rows {
		info := b.Bots[r.Bot]
		name, author := cell(r.Bot), cell(info.Author)
		if r.Baseline {
			name += " *(baseline)*"
			author = "—"
		}
		cells := make([]string, len(r.Cells))
		for k, c := range r.Cells {
			cells[k] = cell(c) // engines put bots' own words in cells (a disqualification's reason)
		}
		fmt.Fprintf(&w, "| %d | %s | %s | %s | %s |\n", i+1, name, author, strings.Join(cells, " | "), faultCell(info.Faults))
	}
	if b.Result.Appendix != "" {
		w.WriteString("\n" + b.Result.Appendix)
		if !strings.HasSuffix(b.Result.Appendix, "\n") {
			w.WriteString("\n")
		}
	}
	if len(b.NotEntered) > 0 {
		w.WriteString("\n## Not entered\n\n| Answer | Author | Bot | Status | Reason |\n|---|---|---|---|---|\n")
		for _, r := range b.NotEntered {
			fmt.Fprintf(&w, "| [%d](https://codegolf.stackexchange.com/a/%d) | %s | %s | %s | %s |\n",
				r.AnswerID, r.AnswerID, cell(r.Author), cell(r.Name), r.Status, cell(r.Reason))
		}
	}
	faulty := faultyBots(b)
	if len(faulty) > 0 {
		w.WriteString("\n## Faults\n\nDecisions that did not end well, and the first one in full so it can be reproduced.\n\n")
		for _, name := range faulty {
			info := b.Bots[name]
			fmt.Fprintf(&w, "- **%s**: %s\n", cell(name), faultCell(info.Faults))
			if info.FirstFault != "" {
				// HTML-escaped in <pre>, not a ``` fence: the text is the bot's (its
				// exception message), and a fence it closed itself would let it write the page.
				fmt.Fprintf(&w, "  <details><summary>first fault</summary><pre>%s</pre></details>\n", preText(info.FirstFault))
			}
		}
	}
	if len(b.Changes) > 0 {
		w.WriteString("\n## Changes since the previous run\n\n")
		for _, c := range b.Changes {
			fmt.Fprintf(&w, "- %s\n", text(c))
		}
	}
	w.WriteString("\n*Published by kothd. Same seed and same bots give the same table.*\n")
	return []byte(w.String())
}

// JSON renders the board for tools.
func JSON(b *Board) []byte {
	out, _ := json.MarshalIndent(b, "", "  ")
	return append(out, '\n')
}

func faultyBots(b *Board) []string {
	var out []string
	for name, info := range b.Bots {
		if len(info.Faults) > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// faultCell lists non-OK outcomes, e.g. "3 crash, 1 timeout"; empty when clean.
func faultCell(f map[engine.Outcome]int) string {
	var parts []string
	for _, o := range engine.Outcomes {
		if o != engine.OK && f[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", f[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// cell makes participant-controlled text (bot names, authors, titles, reasons) safe inside
// a markdown table cell: one line, no table pipes, no markup, at most 300 characters.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return text(s)
}

// markdownSpecial are the characters with which text could turn into links, images,
// emphasis, code, headings or table cells on a rendered page.
var markdownSpecial = strings.NewReplacer(
	"\\", "\\\\", "|", "\\|", "[", "\\[", "]", "\\]", "(", "\\(", ")", "\\)", "!", "\\!",
	"*", "\\*", "_", "\\_", "`", "\\`", "#", "\\#", "~", "\\~",
)

// text makes a line of participant-controlled text inert: HTML escaped (no raw tags) and
// markdown punctuation backslash-escaped, so it renders as the characters it holds.
func text(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	return markdownSpecial.Replace(html.EscapeString(s))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// inHTML are characters a markdown renderer might still act on next to raw HTML; as
// numeric entities they display unchanged.
var inHTML = strings.NewReplacer("\n", "&#10;", "\r", "", "[", "&#91;", "]", "&#93;", "(", "&#40;", ")", "&#41;",
	"`", "&#96;", "*", "&#42;", "_", "&#95;", "|", "&#124;", "!", "&#33;")

// preText is multi-line participant text for a one-line <pre> element.
func preText(s string) string {
	return inHTML.Replace(html.EscapeString(strings.TrimSpace(s)))
}
