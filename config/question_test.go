package config

import (
	"strings"
	"testing"
	"time"
)

// question_board is checked like every other block: unknown keys and values out of range
// are errors naming file:line; absent values take the defaults.
func TestQuestionBoardChecked(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"misspelt key", "challenges:\n  - name: a\n    question_id: 1\n    question_board:\n      enabled: true\n      min_intervall: 24h\n",
			`:6: unknown key "min_intervall" in question_board of challenge a (did you mean "min_interval"?)`},
		{"token in the file", "challenges:\n  - name: a\n    question_id: 1\n    question_board:\n      access_token: x\n",
			`:5: unknown key "access_token" in question_board of challenge a`},
		{"too many rows", "challenges:\n  - name: a\n    question_id: 1\n    question_board:\n      top: 500\n",
			`:5: challenge a: question_board.top must be between 1 and 50 rows (0 or absent: 10), not 500`},
		{"too often", "challenges:\n  - name: a\n    question_id: 1\n    question_board: {enabled: true, min_interval: 5m}\n",
			`:4: challenge a: question_board.min_interval must be at least 1h0m0s, not 5m0s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.body)
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, p+tc.want)
			}
		})
	}
	c, err := Load(write(t, "challenges:\n  - name: a\n    question_id: 1\n    question_board: {enabled: true}\n  - name: b\n    question_id: 2\n    question_board: {enabled: true, top: 5, min_interval: 6h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Challenges[0].QuestionBoard, c.Challenges[1].QuestionBoard
	if !a.Enabled || a.TopRows() != 10 || a.Interval() != 24*time.Hour || b.TopRows() != 5 || b.Interval() != 6*time.Hour {
		t.Errorf("a %+v (%d, %s), b %+v (%d, %s)", a, a.TopRows(), a.Interval(), b, b.TopRows(), b.Interval())
	}
}
