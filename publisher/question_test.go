package publisher

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The table goes between the markers and every other byte of the body stays: entities
// written as text in code, CRLF line ends, the text after the markers. Replacing again
// with the same table changes nothing.
func TestReplaceMarkedKeepsEveryOtherByte(t *testing.T) {
	head := "Rules: `a &amp; b` and &lt;tags&gt; as text.\r\n\r\n    if x < 3 && y: pass\r\n\r\n" + MarkerOpen
	tail := MarkerClose + "\r\n\r\nÉté &#39; — trailing text, no final newline"
	body := head + "\r\nwhatever the host pasted\r\n| old | table |\r\n" + tail
	table := "| # | Bot |\n|---|---|\n| 1 | X |\n"
	got, err := ReplaceMarked(body, table)
	if err != nil {
		t.Fatal(err)
	}
	want := head + "\r\n\r\n| # | Bot |\r\n|---|---|\r\n| 1 | X |\r\n\r\n" + tail
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if again, _ := ReplaceMarked(got, table); again != got {
		t.Errorf("a second replacement changed the body:\n%q", again)
	}
	lf := "intro\n" + MarkerOpen + MarkerClose + "\nend\n"
	if got, _ := ReplaceMarked(lf, table); got != "intro\n"+MarkerOpen+"\n\n"+table+"\n"+MarkerClose+"\nend\n" {
		t.Errorf("LF body: %q", got)
	}
	for _, bad := range []string{"no markers at all", MarkerOpen + " only the opening one", "only the closing " + MarkerClose} {
		if _, err := ReplaceMarked(bad, table); !errors.Is(err, ErrNoMarkers) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	for _, bad := range []string{MarkerClose + " reversed " + MarkerOpen, MarkerOpen + MarkerClose + MarkerOpen + MarkerClose} {
		if _, err := ReplaceMarked(bad, table); err == nil || errors.Is(err, ErrNoMarkers) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The site counts a body in UTF-16 units: an emoji is two.
func TestBodyChars(t *testing.T) {
	if n := BodyChars("é😀\r\n"); n != 5 {
		t.Errorf("BodyChars = %d, want 5", n)
	}
}

// The question's table shows the top rows, with participants' words inert as on the page,
// the run and a link to the full board; and it renders as one table.
func TestQuestionTable(t *testing.T) {
	in := sampleInput()
	evil := "x](http://evil.example) <img src=x> *em* | cell\n# Heading"
	in.Result.Rows[1].Bot = evil
	in.Bots[evil] = BotInfo{Bot: answerBot(evil, 12)}
	b := Build(in)
	md := QuestionTable(b, 3, "https://github.com/o/r/blob/main/forty.md")
	doc, html := render(t, []byte(md))
	if n := doc.Find("table tbody tr").Length(); n != 3 {
		t.Errorf("%d rows, want 3:\n%s", n, html)
	}
	if n := doc.Find("img, h1, td em").Length(); n > 0 {
		t.Errorf("participants' text made %d elements:\n%s", n, html)
	}
	links := 0
	for _, n := range doc.Find("a").Nodes {
		for _, a := range n.Attr {
			if a.Key == "href" {
				links++
				if !strings.HasPrefix(a.Val, "https://codegolf.stackexchange.com/") && a.Val != "https://github.com/o/r/blob/main/forty.md" {
					t.Errorf("link to %q:\n%s", a.Val, html)
				}
			}
		}
	}
	if links != 4 { // three bots and the full board
		t.Errorf("%d links, want 4:\n%s", links, html)
	}
	for _, want := range []string{"Top 3 of 6 bots", "run 3 (seed 42, 4,000 games)", "2026-11-21 04:00 UTC", "full leaderboard", "| 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "TwinOne") {
		t.Errorf("row 4 shown in a top 3:\n%s", md)
	}
	if all := QuestionTable(b, 10, ""); !strings.Contains(all, "All 6 bots") || strings.Contains(all, "full leaderboard") {
		t.Errorf("whole board without a public link:\n%s", all)
	}
	// A bot named like a marker cannot add one to the question (and so block the next edit).
	in = sampleInput()
	in.Result.Rows[0].Bot = MarkerClose + MarkerOpen
	in.Bots[MarkerClose+MarkerOpen] = BotInfo{Bot: answerBot(MarkerOpen, 11)}
	md = QuestionTable(Build(in), 3, "")
	if strings.Contains(md, MarkerOpen) || strings.Contains(md, MarkerClose) {
		t.Errorf("a marker in the table:\n%s", md)
	}
	if body, err := ReplaceMarked("q "+MarkerOpen+MarkerClose, md); err != nil {
		t.Errorf("the table's own markers: %v", err)
	} else if _, err := ReplaceMarked(body, md); err != nil {
		t.Errorf("the next edit is blocked: %v", err)
	}
}

// The table changes only when its bots changed or moved outside the noise.
func TestRankingChangedFrom(t *testing.T) {
	e := func(bot string, lo, hi int) RankEntry { return RankEntry{Bot: bot, Content: "h" + bot, Lo: lo, Hi: hi} }
	base := Ranking{Top: 2, Rows: []RankEntry{e("A", 1, 1), e("B", 2, 3), e("C", 2, 3), e("D", 4, 4)}}
	for _, tc := range []struct {
		name string
		now  Ranking
		want string // "" unchanged, else a word of the reason
	}{
		{"same", base, ""},
		{"noise swap in a tie group", Ranking{Top: 2, Rows: []RankEntry{e("A", 1, 1), e("C", 2, 3), e("B", 2, 3), e("D", 4, 4)}}, ""},
		{"move below the table", Ranking{Top: 2, Rows: []RankEntry{e("A", 1, 1), e("B", 2, 3), e("C", 2, 3), e("E", 4, 4)}}, ""},
		{"significant move", Ranking{Top: 2, Rows: []RankEntry{e("B", 1, 1), e("A", 2, 2), e("C", 3, 4), e("D", 3, 4)}}, "outside the noise"},
		{"new bot on top", Ranking{Top: 2, Rows: []RankEntry{e("E", 1, 1), e("A", 1, 2), e("B", 3, 4), e("C", 3, 4)}}, "entered"},
		{"bot in the table left", Ranking{Top: 2, Rows: []RankEntry{e("B", 1, 2), e("C", 1, 2), e("D", 3, 3)}}, "left"},
		{"edited", Ranking{Top: 2, Rows: []RankEntry{{Bot: "A", Content: "new", Lo: 1, Hi: 1}, e("B", 2, 3), e("C", 2, 3), e("D", 4, 4)}}, "edited"},
		{"size", Ranking{Top: 3, Rows: base.Rows}, "size"},
	} {
		got := tc.now.ChangedFrom(&base)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if base.ChangedFrom(nil) == "" {
		t.Error("no previous table: unchanged")
	}
}

// The question's table shows the board's numbers, to the board's precision, under the
// board's column name: a participant who follows the link finds the same figures.
func TestQuestionTableScoresAreTheBoards(t *testing.T) {
	in := sampleInput()
	in.Result.Columns[0] = "Win%"
	for i := range in.Result.Rows {
		in.Result.Rows[i].Cells[0] = fmt.Sprintf("%.1f", in.Result.Rows[i].Score+0.4)
	}
	b := Build(in)
	md := QuestionTable(b, 10, "")
	board := string(Markdown(b))
	if !strings.HasPrefix(md, "| # | Bot | Author | Win% |\n") {
		t.Errorf("heading:\n%s", md)
	}
	for _, r := range b.Rows {
		want := r.Cells[0]
		if !strings.Contains(md, "| "+want+" |\n") || !strings.Contains(board, want) {
			t.Errorf("%s: the board says %s; table:\n%s", r.Bot, want, md)
		}
	}
}
