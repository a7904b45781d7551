package publisher

import (
	"strings"
	"testing"
)

func movesOf(b *Board) map[string]*Move {
	got := map[string]*Move{}
	for _, r := range b.Rows {
		got[r.Bot] = r.Move
	}
	return got
}

func changeKinds(b *Board) string {
	var out []string
	for _, c := range b.Changes {
		out = append(out, c.Kind+":"+c.Bot+c.Title)
	}
	return strings.Join(out, ",")
}

// A bot is the same bot when its answer and name are. Another answer's bot under the same
// name is a new bot, not the old one moved: the measured case was GoTo20Bot of answer
// 178093 shown "down from 1 to 15" after answer 177771's GoTo20Bot was deleted.
func TestMovesFollowAnswersNotNames(t *testing.T) {
	first := Build(sampleInput())
	in := sampleInput()
	in.RunID, in.Previous = 4, first
	// The leader's answer 11 is gone; answer 21 enters a bot of the same name, last.
	rows := in.Result.Rows
	lead := rows[0]
	copy(rows, rows[1:])
	lead.Score, lead.Wins = 1, 40
	rows[len(rows)-1] = lead
	rows[len(rows)-2], rows[len(rows)-1] = rows[len(rows)-1], rows[len(rows)-2] // the baseline stays last
	in.Bots["Leader"] = BotInfo{Bot: answerBot("Eve", 21), ContentHash: "ef34"}
	in.Changes = []Change{{Kind: "withdrawn", AnswerID: 11, Title: "Leader", Author: "Ann"}}
	b := Build(in)
	m := movesOf(b)
	if l := m["Leader"]; l == nil || l.Kind != "new" {
		t.Errorf("answer 21's Leader: move %+v, want new", l)
	}
	for bot, mv := range m {
		if bot != "Leader" && mv != nil {
			t.Errorf("%s moved %+v though the field changed under it", bot, mv)
		}
	}
	if got := changeKinds(b); got != "withdrawn:Leader,new:Leader" {
		t.Errorf("changes %s", got)
	}
	if s := b.Since; s == nil || s.PreviousRun != 3 || s.Entered != 1 || s.Left != 1 || s.Edited != 0 {
		t.Errorf("since %+v", b.Since)
	}
	if md := string(Markdown(b)); !strings.Contains(md, "The field changed since (1 entered, 1 left, 0 edited)") {
		t.Errorf("page does not say the field changed:\n%s", md)
	}
}

// With a bot new to the field, the others' ranks shift with it: no arrows for them,
// however far they moved.
func TestNoMovesWhenTheFieldChanged(t *testing.T) {
	first := Build(sampleInput())
	in := sampleInput()
	in.RunID, in.Previous = 4, first
	rows := in.Result.Rows
	rows[0], rows[2] = rows[2], rows[0] // Leader to third, clear of where it was
	rows[0].Score, rows[0].Wins = 20.6, 824
	rows[2].Score, rows[2].Wins = 10.5, 420
	in.Bots["Close"] = BotInfo{Bot: answerBot("Bob", 13), ContentHash: "new"} // Close was edited
	b := Build(in)
	m := movesOf(b)
	if m["Leader"] != nil {
		t.Errorf("Leader's fall shown though Close changed under it: %+v", m["Leader"])
	}
	// Close itself: its own edit, the field otherwise the same; 20 → 20.6 is within the noise.
	if m["Close"] != nil {
		t.Errorf("Close's noise shown as a move: %+v", m["Close"])
	}
	// Only Close changed, and it rose clear of where it was: its own move, shown as edited.
	in.Result.Rows[0].Score, in.Result.Rows[0].Wins = 40, 1600
	b = Build(in)
	if c := movesOf(b)["Close"]; c == nil || c.Kind != "up" || c.Why != "edited" || c.From != 3 {
		t.Errorf("Close's edit, up from 3 to 1: %+v", c)
	}
}

// A first run compares with nothing: no "new" for every answer, and the page says so.
func TestFirstRun(t *testing.T) {
	in := sampleInput()
	in.FirstRun = true
	in.Changes = []Change{{Kind: "new", AnswerID: 11, Title: "Leader"}, {Kind: "new", AnswerID: 9, Title: "X"}}
	b := Build(in)
	if len(b.Changes) != 0 || b.Since == nil || !b.Since.FirstRun {
		t.Errorf("first run: changes %s, since %+v", changeKinds(b), b.Since)
	}
	for _, r := range b.Rows {
		if r.Move != nil {
			t.Errorf("first run: %s moved %+v", r.Bot, r.Move)
		}
	}
	md := string(Markdown(b))
	if !strings.Contains(md, "First run of this challenge") || strings.Contains(md, "new:") {
		t.Errorf("first run's page:\n%s", md)
	}
}
