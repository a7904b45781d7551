package publisher

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
)

// Unsettled is the board's rank ranges at the asked level: what an adaptive run stops on.
func TestUnsettled(t *testing.T) {
	// Bootstrap: A,B equal at 5, C,D equal at 0: two overlapping ranges remain.
	if got := unsettled(meanResult([]float64{5, 5, 0, 0}, 200, 7), 1, 0.95); !reflect.DeepEqual(got, [][2]int{{1, 2}, {3, 4}}) {
		t.Errorf("equal pairs: unsettled %v, want [1 2] [3 4]", got)
	}
	// Four clearly different strengths: settled.
	if got := unsettled(meanResult([]float64{6, 4, 2, 0}, 200, 7), 1, 0.95); len(got) != 0 {
		t.Errorf("distinct bots: unsettled %v, want none", got)
	}
	// Win rates (Wilson): the sample's 20.5 % and 20 % over 4000 games overlap; the twins'
	// identical scores share a rank and never count as unsettled.
	res := sampleInput().Result
	if got := unsettled(res, 42, 0.95); !reflect.DeepEqual(got, [][2]int{{2, 3}}) {
		t.Errorf("sample: unsettled %v, want [2 3]", got)
	}
	// The level is the asked one: 30 % against 26.3 % of 4000 games is settled at 95 %
	// (two bots' simultaneous Wilson intervals 28.40–31.65 and 24.77–27.89 are apart), not
	// at 99 % (28.01–32.07 and 24.39–28.30 overlap).
	pair := &engine.Result{Games: 4000, WinRate: true, Rows: []engine.Row{{Bot: "a", Score: 30, Wins: 1200, Played: 4000}, {Bot: "b", Score: 26.3, Wins: 1052, Played: 4000}}}
	if got := unsettled(pair, 1, 0.95); len(got) != 0 {
		t.Errorf("at 95 %%: unsettled %v, want none", got)
	}
	if got := unsettled(pair, 1, 0.99); !reflect.DeepEqual(got, [][2]int{{1, 2}}) {
		t.Errorf("at 99 %%: unsettled %v, want [1 2]", got)
	}
	// Every bot equal to the last digit: nothing can separate them, and nothing need.
	same := &engine.Result{Games: 100, WinRate: true, Rows: []engine.Row{{Bot: "a", Score: 10, Wins: 10, Played: 100}, {Bot: "b", Score: 10, Wins: 10, Played: 100}}}
	if got := unsettled(same, 1, 0.95); len(got) != 0 {
		t.Errorf("identical scores: unsettled %v, want none", got)
	}
}

func TestEndingOnThePage(t *testing.T) {
	in := sampleInput()
	in.Ending = &Ending{Reason: EndSettled, Confidence: 0.95, Games: 30000, Budget: 100000, MinGames: 20000, Batch: 10000}
	b := Build(in)
	if b.Run.Ending == nil || b.Run.Ending.Overlaps == nil {
		t.Fatalf("ending %+v: want it with [] overlaps", b.Run.Ending)
	}
	if md := string(Markdown(b)); !strings.Contains(md, "Ended: order settled at 95 % after 30,000 games (budget 100,000).") {
		t.Errorf("settled run's page:\n%s", md)
	}
	in.Ending = &Ending{Reason: EndBudget, Confidence: 0.99, Games: 100000, Budget: 100000, Batch: 10000, Overlaps: [][2]int{{3, 5}, {7, 8}, {10, 12}}}
	if md := string(Markdown(Build(in))); !strings.Contains(md, "Ended: game budget (100,000) spent, ranks 3–5, 7–8 and 10–12 still overlap at 99 %.") {
		t.Errorf("budget run's page:\n%s", md)
	}
	in.Ending = nil
	if md := string(Markdown(Build(in))); strings.Contains(md, "Ended:") {
		t.Error("a run of fixed length says how it ended")
	}
}

// What one look at the order costs an adaptive run: the bootstrap (20 bots, 10,000 games,
// 1,000 resamples) dominates; Wilson is the tests alone.
func BenchmarkUnsettled(b *testing.B) {
	strengths := make([]float64, 20)
	for i := range strengths {
		strengths[i] = float64(i) / 10
	}
	boot := meanResult(strengths, 10000, 1)
	b.Run("bootstrap-20bots-10000games", func(b *testing.B) {
		for b.Loop() {
			unsettled(boot, 1, 0.95)
		}
	})
	wilson := sampleInput().Result
	b.Run("wilson-6bots", func(b *testing.B) {
		for b.Loop() {
			unsettled(wilson, 1, 0.95)
		}
	})
}
