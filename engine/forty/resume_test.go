package forty

import (
	"context"
	"testing"

	"github.com/kothd/kothd/engine"
)

// A checkpoint whose state does not hold the games it claims (a JSON null or {} from a
// damaged row, a state saved under another Done) is refused: resumed, it would silently
// drop the games it lost from the table.
func TestResumeRefusesStateOfOtherLength(t *testing.T) {
	bots := goField(5)
	var saved engine.Checkpoint
	record := func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		if cp.Done == 10 {
			saved = cp
		}
		return false, nil
	}
	if _, err := Run(context.Background(), &goBots{}, bots, Options{Games: 30, Seed: 3, Batches: &engine.Batches{Every: 10, Done: record}}); err != nil {
		t.Fatal(err)
	}
	for name, cp := range map[string]engine.Checkpoint{
		"null":          {Done: 10, State: []byte("null")},
		"empty object":  {Done: 10, State: []byte("{}")},
		"done mismatch": {Done: 20, State: saved.State},
	} {
		b := &engine.Batches{Resume: &cp, Every: 10, Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) { return false, nil }}
		if got, err := Run(context.Background(), &goBots{}, bots, Options{Games: 30, Seed: 3, Batches: b}); err == nil {
			t.Errorf("%s: resumed, ending with %d games of 30", name, got.Games+got.Voided)
		}
	}
}
