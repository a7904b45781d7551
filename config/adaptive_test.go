package config

import (
	"strings"
	"testing"
)

// The adaptive block is checked like every other: unknown keys, values out of range, an
// engine that cannot stop early, a run without a budget.
func TestAdaptiveChecked(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"misspelt key", "challenges:\n  - name: a\n    question_id: 1\n    adaptive:\n      confidance: 0.9\n",
			`:5: unknown key "confidance" in adaptive of challenge a (did you mean "confidence"?)`},
		{"confidence as a percentage", "challenges:\n  - name: a\n    question_id: 1\n    adaptive: {confidence: 95}\n",
			`:4: challenge a: adaptive.confidence must be at least 0.5 and below 1 (0.95 is 95 %), not 95`},
		{"confidence not a number", "challenges:\n  - name: a\n    question_id: 1\n    adaptive: {confidence: .nan}\n",
			`:4: challenge a: adaptive.confidence must be at least 0.5 and below 1 (0.95 is 95 %), not NaN`},
		{"negative batch", "challenges:\n  - name: a\n    question_id: 1\n    adaptive:\n      batch: -1\n", `:5: challenge a: adaptive.batch must not be negative`},
		{"min games over the budget", "challenges:\n  - name: a\n    question_id: 1\n    games: 1000\n    adaptive: {min_games: 2000}\n",
			`:5: challenge a: adaptive.min_games (2000) is more than the budget, games (1000)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.body)
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, p+tc.want)
			}
		})
	}

	known := Known{Engines: map[string]Engine{"batched": {Protocol: "argv", Batched: true}, "whole": {Protocol: "argv", Games: 100},
		"defaulted": {Protocol: "argv", Batched: true, Games: 10000}}}
	for _, tc := range []struct{ body, want string }{
		{"challenges:\n  - name: a\n    engine: whole\n    question_id: 1\n    adaptive: {}\n",
			`:5: challenge a: the whole engine does not play in batches, so it cannot stop early: remove adaptive`},
		{"challenges:\n  - name: a\n    engine: batched\n    question_id: 1\n    adaptive: {}\n",
			`:5: challenge a: adaptive needs a game budget: set games`},
		// The budget is the engine's default: the block is held to it as to games.
		{"challenges:\n  - name: a\n    engine: defaulted\n    question_id: 1\n    adaptive: {batch: 50000, min_games: 9000}\n",
			`:5: challenge a: adaptive.batch (50000) is more than the budget, the defaulted engine's default games (10000)`},
		{"challenges:\n  - name: a\n    engine: defaulted\n    question_id: 1\n    adaptive: {min_games: 90000}\n",
			`:5: challenge a: adaptive.min_games (90000) is more than the budget, the defaulted engine's default games (10000)`},
	} {
		p := write(t, tc.body)
		c, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(known); err == nil || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("err = %v\nwant %q", err, p+tc.want)
		}
	}

	p := write(t, "challenges:\n  - name: a\n    engine: batched\n    question_id: 1\n    games: 100000\n    adaptive: {confidence: 0.99, batch: 10000, min_games: 20000}\n  - {name: b, engine: whole, question_id: 2}\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(known); err != nil {
		t.Fatalf("valid adaptive block refused: %v", err)
	}
	if a := c.Challenges[0].Adaptive; a == nil || *a != (Adaptive{Confidence: 0.99, Batch: 10000, MinGames: 20000}) {
		t.Errorf("adaptive = %+v", a)
	}
	if c.Challenges[1].Adaptive != nil {
		t.Error("a challenge without the block is adaptive")
	}
}
