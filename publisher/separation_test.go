package publisher

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The estimate of more games follows the 1/√games width of the intervals: a gap of 1
// between two bots whose intervals reach 2 below and 2 above needs intervals a quarter as
// wide, sixteen times the games.
func TestSeparationEstimate(t *testing.T) {
	row := func(score, lo, hi float64, r0, r1 int) Row {
		return Row{Score: score, Interval: &Interval{Low: lo, High: hi}, RankRange: [2]int{r0, r1}}
	}
	b := &Board{Run: RunInfo{Games: 10000}, Rows: []Row{
		row(20, 18, 22, 1, 2), row(19, 17, 21, 1, 2), // 160,000 games: 150,000 more
		row(5, 4, 6, 3, 3),
		row(1, 0.5, 1.5, 4, 6), row(0.9, 0.4, 1.4, 4, 6), row(0.9, 0.4, 1.4, 4, 6), // equal scores: never ordered
	}}
	got := separations(b)
	if len(got) != 2 || got[0].Ranks != [2]int{1, 2} || got[1].Ranks != [2]int{4, 6} {
		t.Fatalf("groups %+v", got)
	}
	if s := got[0]; s.FirstSplit == nil || *s.FirstSplit != 150000 || s.Ordered == nil || *s.Ordered != 150000 {
		t.Errorf("ranks 1–2: %+v", s)
	}
	// 1 over 0.9: gap 0.1, widths 0.5 + 0.5: 100 times the games; the two 0.9 never.
	if s := got[1]; s.FirstSplit == nil || *s.FirstSplit != 990000 || s.Ordered != nil {
		t.Errorf("ranks 4–6: %+v", s)
	}
	b.Separation = got
	text := separationText(b)
	for _, want := range []string{"ranks 1–2 would be ordered after about 150,000 more games", "ranks 4–6 would start to split after about 990,000 more games; ordering all of them would take more than a thousand times"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in %q", want, text)
		}
	}
	// Settled ranks: nothing to say.
	b.Rows = []Row{row(20, 19, 21, 1, 1), row(10, 9, 11, 2, 2)}
	if s := separations(b); len(s) != 0 {
		t.Errorf("settled: %+v", s)
	}
}

// The page and the JSON carry the estimate of a board whose ranks stay wide.
func TestSeparationOnTheBoard(t *testing.T) {
	b := Build(sampleInput()) // ranks 2–3 overlap
	if len(b.Separation) == 0 || b.Separation[0].Ranks != [2]int{2, 3} {
		t.Fatalf("separation %+v", b.Separation)
	}
	if md := string(Markdown(b)); !strings.Contains(md, "**Wide ranks**: ranks 2–3 ") {
		t.Errorf("no wide ranks line:\n%s", md)
	}
	var j struct {
		Separation []map[string]any `json:"separation"`
	}
	if err := json.Unmarshal(JSON(b), &j); err != nil || len(j.Separation) != 1 || fmt.Sprint(j.Separation[0]["ranks"]) != "[2 3]" {
		t.Errorf("JSON separation %+v %v", j.Separation, err)
	}
	if _, ok := j.Separation[0]["more_games_first_split"]; !ok {
		t.Errorf("JSON separation without more_games_first_split: %+v", j.Separation)
	}
}
