package publisher

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/internal/stats"
)

// Markdown renders the board for people (GitHub Flavored Markdown). Everything the
// participants wrote goes through cell/text/preText; the links are the board's own.
//
// Layout: the main table has three columns (rank and change, bot and author, headline score
// with its interval), so it fits GitHub's content column (about 980 px) and a phone's 390 px
// without scrolling sideways; the challenge's other columns, games and faults follow in a
// second table inside a <details> block, and a legend says what every column means.
func Markdown(b *Board) []byte {
	var w strings.Builder
	fmt.Fprintf(&w, "# %s: leaderboard\n\n", text(b.Title))
	fmt.Fprintf(&w, "[Question %d](%s) · run %d · %s", b.QuestionID, b.QuestionURL, b.Run.ID, plural(b.Run.Games, "game"))
	if b.Run.Voided > 0 {
		fmt.Fprintf(&w, " (+%d voided by host faults)", b.Run.Voided)
	}
	fmt.Fprintf(&w, " · %s · %s UTC  \n", plural(len(b.Rows), "bot"), b.Run.Date.UTC().Format("2006-01-02 15:04"))
	if b.Run.NextRun != nil {
		fmt.Fprintf(&w, "Next run: %s UTC\n\n", b.Run.NextRun.UTC().Format("2006-01-02 15:04"))
	} else {
		w.WriteString("Next run: when the host runs it\n\n")
	}
	if e := b.Run.Ending; e != nil {
		fmt.Fprintf(&w, "%s\n\n", e)
	}
	for _, l := range b.Run.Lowered {
		// A participant's bot name: text() escapes it.
		fmt.Fprintf(&w, "Played again with %s in flight: %s ran out of memory (memory_mb %d) with %d games in flight in its process; the original controller plays one game at a time.\n\n",
			plural(l.Next, "game"), text(l.Bot), l.MemoryMB, l.InFlight)
	}
	for _, l := range b.Summary {
		fmt.Fprintf(&w, "%s  \n", text(l))
	}
	if len(b.Summary) > 0 {
		w.WriteString("\n")
	}
	table(&w, b)
	if t := separationText(b); t != "" {
		w.WriteString("\n" + t)
	}
	legend(&w, b)
	details(&w, b)
	charts(&w, b)
	if b.Appendix != "" {
		w.WriteString("\n" + b.Appendix) // the engine's own markdown; bot names in it are escaped by the engine
		if !strings.HasSuffix(b.Appendix, "\n") {
			w.WriteString("\n")
		}
	}
	changes(&w, b)
	if len(b.NotEntered) > 0 {
		w.WriteString("\n## Not entered\n\n| Answer | Author | Bot | Status | Reason |\n|---|---|---|---|---|\n")
		for _, r := range b.NotEntered {
			answer := "—"
			if r.AnswerID != 0 {
				answer = fmt.Sprintf("[%d](%s)", r.AnswerID, answerURL(r.AnswerID))
			}
			fmt.Fprintf(&w, "| %s | %s | %s | %s | %s |\n", answer, cell(r.Author), cell(r.Name), cell(r.Status), cell(r.Reason))
		}
	}
	faults(&w, b)
	footer(&w, b)
	return []byte(w.String())
}

// headline is the name of the headline score's column: the engine's first column.
func headline(b *Board) string {
	if len(b.Columns) > 0 {
		return b.Columns[0]
	}
	return "Score"
}

// hasIntervals says whether any row has an interval to show.
func hasIntervals(b *Board) bool {
	for _, r := range b.Rows {
		if r.Interval != nil {
			return true
		}
	}
	return false
}

// table is the main table: rank and change, bot and author, score and interval.
func table(w *strings.Builder, b *Board) {
	score := text(headline(b))
	if hasIntervals(b) {
		score += " (95 % interval)"
	}
	fmt.Fprintf(w, "| # | Bot | %s |\n|---|---|---|\n", score)
	for _, r := range b.Rows {
		rank := rankCell(r)
		if m := moveCell(r.Move); m != "" {
			rank += " " + m
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", rank, botCell(r), scoreCell(r))
	}
}

// botCell is the bot's name, linked to its answer, over its author.
func botCell(r Row) string {
	name := breakable(r.Bot)
	if r.Link != "" {
		name = "[" + name + "](" + r.Link + ")"
	}
	if r.Baseline {
		return name + "<br>*baseline*"
	}
	if r.Author != "" {
		name += "<br>by " + breakable(r.Author)
	}
	return name
}

// scoreValue is the headline score as the engine wrote it (the board's and the question
// table's one way of showing it).
func scoreValue(r Row) string {
	if len(r.Cells) > 0 {
		return cell(r.Cells[0])
	}
	return fmt.Sprintf("%.*f", decimals(1), r.Score)
}

// scoreCell is the headline score as the engine wrote it, with its interval in brackets.
func scoreCell(r Row) string {
	v := scoreValue(r)
	if r.Interval != nil {
		v += " (" + intervalCell(r.Interval) + ")"
	}
	return v
}

// breakable is cell(s) with places a line may break (<wbr>) inside words too long for a
// phone's column (over 12 characters): between a lower-case letter and a capital ("Points<wbr>Are<wbr>For"),
// after an underscore, between letters and digits, and at least every 12 characters. The
// pieces are escaped one by one, so no escape or word joiner is split; an autolink cannot
// form across a <wbr> (it needs its characters side by side in one text).
func breakable(s string) string {
	r := []rune(mdtext.Cut(mdtext.Visible(s), 300))
	var out []string
	from, run, word := 0, 0, 0 // start of the current piece; characters since the last break or blank; of the word
	for i := range r {
		if unicode.IsSpace(r[i]) {
			run, word = 0, 0
			continue
		}
		if word == 0 {
			for j := i; j < len(r) && !unicode.IsSpace(r[j]); j++ {
				word++
			}
		}
		if word > 12 && run >= 4 && i > from && i+1 < len(r) && (run >= 12 || wordBreak(r[i-1], r[i])) {
			out = append(out, cell(string(r[from:i])))
			from, run = i, 0
		}
		run++
	}
	if len(out) == 0 {
		return cell(s)
	}
	return strings.Join(append(out, cell(string(r[from:]))), "<wbr>")
}

// wordBreak: a camel-case hump, the end of an underscore, a change between letters and
// digits.
func wordBreak(a, b rune) bool {
	return unicode.IsLower(a) && unicode.IsUpper(b) || a == '_' && b != '_' ||
		unicode.IsLetter(a) && unicode.IsDigit(b) || unicode.IsDigit(a) && unicode.IsLetter(b)
}

// legend says what every column of both tables means.
func legend(w *strings.Builder, b *Board) {
	w.WriteString("\n**#**: the bot's rank range: the ranks the statistics allow it (equal scores share a rank). A bot ranks above another only when its interval lies wholly above the other's, so 3–5 means it may be 3rd, 4th or 5th (see the footer). ")
	w.WriteString("▲2, ▼1: places gained or lost since the previous run, shown only when the move is the bot's own and outside the noise and the field did not change; “new” marks a newly entered bot.  \n")
	fmt.Fprintf(w, "**%s**: the headline score, best first", text(headline(b)))
	if note := b.Legend[headline(b)]; note != "" {
		fmt.Fprintf(w, " (%s)", text(note))
	}
	if hasIntervals(b) {
		w.WriteString("; in brackets its 95 % interval, simultaneous: all bots' true scores lie in theirs together with 95 % confidence, and more games narrow them")
	}
	w.WriteString(".\n")
	if note := sinceNote(b.Since); note != "" {
		w.WriteString("\n" + note + "\n")
	}
}

// details is the second table: every column of the challenge, games and faults, with
// what each means.
func details(w *strings.Builder, b *Board) {
	games := "Games"
	for _, c := range b.Columns {
		if c == "Played" || c == "Games" || c == "Finals" {
			games = "" // the challenge's own columns already count them
		}
	}
	w.WriteString("\n<details><summary>All columns")
	if len(b.Columns) > 1 {
		var rest []string
		for _, c := range b.Columns[1:] {
			rest = append(rest, html.EscapeString(mdtext.Visible(c)))
		}
		w.WriteString(": " + strings.Join(rest, ", "))
		if games != "" {
			w.WriteString(", Games")
		}
		w.WriteString(", Faults")
	} else {
		w.WriteString(": games and faults")
	}
	w.WriteString("</summary>\n\n")
	head := []string{"#", "Bot"}
	for _, c := range b.Columns {
		head = append(head, text(c))
	}
	if games != "" {
		head = append(head, games)
	}
	head = append(head, "Faults")
	w.WriteString("| " + strings.Join(head, " | ") + " |\n|" + strings.Repeat("---|", len(head)) + "\n")
	for _, r := range b.Rows {
		cells := []string{rankCell(r), cell(r.Bot)}
		for _, c := range r.Cells {
			cells = append(cells, cell(c)) // engines put bots' own words in cells (a disqualification's reason)
		}
		if games != "" {
			cells = append(cells, fmt.Sprint(r.Games))
		}
		cells = append(cells, faultCell(r.Faults))
		w.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	w.WriteString("\n")
	for _, c := range b.Columns {
		if note := b.Legend[c]; note != "" {
			fmt.Fprintf(w, "- **%s**: %s\n", text(c), text(note))
		}
	}
	if games != "" {
		w.WriteString("- **Games**: games the bot played\n")
	}
	w.WriteString("- **Faults**: the bot's decisions that did not end well, by kind (crash, timeout, bad output …); the first of each bot is under *Faults* below\n")
	w.WriteString("\n</details>\n")
}

// String says why an adaptive run stopped and after how many games, as the page does.
func (e *Ending) String() string {
	pct := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*e.Confidence), "0"), ".")
	if e.Reason == EndSettled {
		return fmt.Sprintf("Ended: order settled at %s %% after %s games (budget %s).", pct, thousands(e.Games), thousands(e.Budget))
	}
	var spans []string
	for _, o := range e.Overlaps {
		spans = append(spans, fmt.Sprintf("%d–%d", o[0], o[1]))
	}
	s := fmt.Sprintf("Ended: game budget (%s) spent", thousands(e.Budget))
	switch len(spans) {
	case 0:
	case 1:
		s += fmt.Sprintf(", ranks %s still overlap at %s %%", spans[0], pct)
	default:
		s += fmt.Sprintf(", ranks %s and %s still overlap at %s %%", strings.Join(spans[:len(spans)-1], ", "), spans[len(spans)-1], pct)
	}
	return s + "."
}

// thousands writes n with commas between groups of three digits: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// rankCell is the rank range: "4", or "3–5" when the statistics allow several ranks.
func rankCell(r Row) string {
	g := rangeOf(r)
	if g[0] != g[1] {
		return fmt.Sprintf("%d–%d", g[0], g[1])
	}
	return fmt.Sprint(g[0])
}

func moveCell(m *Move) string {
	switch {
	case m == nil:
		return ""
	case m.Kind == "new":
		return "new"
	case m.Kind == "up":
		return fmt.Sprintf("▲%d", m.Places)
	default:
		return fmt.Sprintf("▼%d", m.Places)
	}
}

// intervalCell shows an interval to two significant digits of its width.
func intervalCell(iv *Interval) string {
	if iv == nil {
		return "—"
	}
	d := decimals(iv.High - iv.Low)
	return fmt.Sprintf("%.*f–%.*f", d, iv.Low, d, iv.High)
}

func decimals(width float64) int {
	if width <= 0 || math.IsNaN(width) || math.IsInf(width, 0) {
		return 2
	}
	return min(max(1-int(math.Floor(math.Log10(width))), 0), 6)
}

func changes(w *strings.Builder, b *Board) {
	if len(b.Changes) == 0 {
		return
	}
	w.WriteString("\n## Changes since the previous run\n\n")
	if b.Since != nil && b.Since.FirstRun {
		w.WriteString("First run: every bot is entered for the first time.\n\n")
	}
	for _, c := range b.Changes {
		who := cell(c.Title)
		if c.Title == "" {
			who = fmt.Sprintf("answer %d", c.AnswerID) // no heading to show
		}
		if c.Bot != "" {
			who = cell(c.Bot)
		}
		if c.AnswerID != 0 {
			who = fmt.Sprintf("[%s](%s)", who, answerURL(c.AnswerID))
		}
		by := ""
		if c.Author != "" {
			by = " by " + cell(c.Author)
		}
		switch c.Kind {
		case "up", "down":
			fmt.Fprintf(w, "- %s%s: %s from %d to %d (outside the noise)\n", who, by, c.Kind, c.From, c.To)
		case "not entered":
			fmt.Fprintf(w, "- new, not entered: %s%s (see Not entered)\n", who, by)
		case "left":
			fmt.Fprintf(w, "- left the table: %s%s\n", who, by)
		case "edited":
			when := ""
			if c.Edited != nil {
				when = " " + c.Edited.UTC().Format("2006-01-02 15:04 UTC")
			}
			fmt.Fprintf(w, "- edited%s: %s%s\n", when, who, by)
		default:
			fmt.Fprintf(w, "- %s: %s%s\n", cell(c.Kind), who, by)
		}
	}
}

func faults(w *strings.Builder, b *Board) {
	var faulty []Row
	for _, r := range b.Rows {
		if len(r.Faults) > 0 {
			faulty = append(faulty, r)
		}
	}
	if len(faulty) == 0 {
		return
	}
	sort.SliceStable(faulty, func(i, j int) bool { return faulty[i].Bot < faulty[j].Bot })
	w.WriteString("\n## Faults\n\nDecisions that did not end well, and the first one in full so it can be reproduced.\n\n")
	for _, r := range faulty {
		fmt.Fprintf(w, "- **%s**: %s\n", cell(r.Bot), faultCell(r.Faults))
		if r.Benched != nil {
			fmt.Fprintf(w, "  %s\n", r.Benched.Text())
		}
		if r.FirstFault != "" {
			// HTML-escaped in <pre>, not a ``` fence: the text is the bot's (its
			// exception message), and a fence it closed itself would let it write the page.
			fmt.Fprintf(w, "  <details><summary>first fault</summary><pre>%s</pre></details>\n", preText(r.FirstFault))
		}
	}
}

// footer says how to reproduce the table and how its statistics were made.
func footer(w *strings.Builder, b *Board) {
	s := b.Statistics
	w.WriteString("\n---\n\n")
	fmt.Fprintf(w, "**Reproduce**: seed `%d` · engine `%s` · kothd `%s` · sandbox %s. Same seed and same bots give the same table.  \n",
		b.Run.Seed, code(b.Run.EngineVersion), code(b.Run.KothdVersion), text(b.Run.Sandbox))
	switch s.Method {
	case stats.MethodWilson:
		fmt.Fprintf(w, "**Statistics**: Wilson score intervals of the win rate over %s %s. Ranks: %s.\n", itoa(int64(s.Units)), s.Unit, s.Ties)
	case stats.MethodBootstrap:
		fmt.Fprintf(w, "**Statistics**: intervals of the score ± a critical value times its bootstrap standard error (%d resamples of the run's %d %s). Ranks: %s.\n", s.Replicates, s.Units, s.Unit, s.Ties)
	default:
		fmt.Fprintf(w, "**Statistics**: the run has %d %s, too few to measure its noise: no intervals. Ranks: %s.\n", s.Units, s.Unit, s.Ties)
	}
	var hashed []Row
	for _, r := range b.Rows {
		if r.ContentHash != "" {
			hashed = append(hashed, r)
		}
	}
	if len(hashed) > 0 {
		w.WriteString("\n<details><summary>Bots' content hashes (sha256 of each answer's extracted files)</summary>\n\n| Bot | Answer | Revision | Versions seen | Content hash |\n|---|---|---|---|---|\n")
		for _, r := range hashed {
			fmt.Fprintf(w, "| %s | %d | %s | %s | `%s` |\n", cell(r.Bot), r.AnswerID, countCell(r.Revision), countCell(int64(r.Versions)), hexOnly(r.ContentHash))
		}
		w.WriteString("\nRevision: the answer's revision number on the site (its edit history); versions seen: the distinct contents of the answer kothd has fetched, this one included.\n")
		w.WriteString("\n</details>\n")
	}
	w.WriteString("\n*Published by kothd.*\n")
}

// countCell is a positive count, or "—" when not known.
func countCell(n int64) string {
	if n <= 0 {
		return "—"
	}
	return itoa(n)
}

// code is the board's own text (versions) for a code span, in which backslashes are
// literal: only a backtick could end it, and a version has none to lose.
func code(s string) string { return strings.ReplaceAll(s, "`", "'") }

// hexOnly keeps a hash's hex digits (it goes inside a code span).
func hexOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'f' {
			return r
		}
		return -1
	}, s)
}

// faultCell lists non-OK outcomes, e.g. "3 crash, 1 timeout"; empty when clean.
func faultCell(f Faults) string {
	var parts []string
	for _, o := range engine.Outcomes {
		if o != engine.OK && f[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", f[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// sinceNote says what Δ compares with: nothing on a first run; otherwise that a move is
// shown only when it is the bot's own and outside the noise.
func sinceNote(s *Since) string {
	switch {
	case s == nil:
		return ""
	case s.FirstRun:
		return "First run of this challenge: there is no earlier run to compare with."
	case s.PreviousRun == 0:
		return "Δ: the previous run's board could not be read, so nothing is compared with it."
	case s.FieldChanged():
		return fmt.Sprintf("Δ compares with run %d. The field changed since (%d entered, %d left, %d edited), which moves every bot's rank and score with it: Δ marks only new bots, and the bot edited when it is the only change.", s.PreviousRun, s.Entered, s.Left, s.Edited)
	default:
		return fmt.Sprintf("Δ compares with run %d, the same bots: a move is shown only when it is outside the noise (rank ranges or intervals apart).", s.PreviousRun)
	}
}
