package publisher

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchedBoard builds the sample board with bot A|B benched as b, checks its JSON against
// the schema and that only that row says benched, and returns its markdown.
func benchedBoard(t *testing.T, b *Benched) string {
	t.Helper()
	in := sampleInput()
	info := in.Bots["A|B"]
	info.Benched = b
	in.Bots["A|B"] = info
	board := Build(in)
	schema := loadSchema(t)
	var doc any
	if err := json.Unmarshal(JSON(board), &doc); err != nil {
		t.Fatal(err)
	}
	if errs := validate(schema, schema, doc, "$"); len(errs) > 0 {
		t.Errorf("board JSON breaks its schema:\n%s", strings.Join(errs, "\n"))
	}
	n := 0
	for _, r := range doc.(map[string]any)["rows"].([]any) {
		if _, ok := r.(map[string]any)["benched"]; ok {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d rows with benched, want 1", n)
	}
	return string(Markdown(board))
}

// A benched bot's row says from which game its calls got the default, in the JSON (by the
// schema) and in the markdown's faults section; other rows have no "benched" at all.
func TestBenchedRow(t *testing.T) {
	md := benchedBoard(t, &Benched{Game: 812, Streak: 50, Calls: 3900})
	if want := "benched from game 812 after 50 faults in a row (3,900 calls got the default without being sent)"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}

// A one-shot bot benched for its run budget, not a streak, says so, with no streak
// behind it, and its JSON still meets the schema.
func TestBenchedForTheBudget(t *testing.T) {
	md := benchedBoard(t, &Benched{Game: 3, Streak: 0, Calls: 120, Budget: 600})
	if want := "benched from game 3: its decisions took its run budget of 10m0s (limits.run_budget) (120 calls got the default without being sent)"; !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}
