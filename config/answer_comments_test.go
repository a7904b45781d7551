package config

import (
	"strings"
	"testing"
)

// answer_comments and board_url are checked like every other key: values out of range and
// unknown keys are errors naming file:line; absent values take the defaults.
func TestAnswerCommentsAndBoardURLChecked(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"too many", "challenges:\n  - name: a\n    question_id: 1\n    answer_comments:\n      max_per_cycle: 500\n",
			`:5: challenge a: answer_comments.max_per_cycle must be between 1 and 50 (0 or absent: 5), not 500`},
		{"token in the file", "challenges:\n  - name: a\n    question_id: 1\n    answer_comments:\n      access_token: x\n",
			`:5: unknown key "access_token" in answer_comments of challenge a`},
		{"relative board_url", "board_url: boards/\nchallenges:\n  - name: a\n    question_id: 1\n",
			`:1: board_url must be an absolute http:// or https:// URL (where the public reads output_dir), not "boards/"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.body)
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, p+tc.want)
			}
		})
	}
	c, err := Load(write(t, "board_url: https://koth.example.org/boards\nchallenges:\n  - name: a\n    question_id: 1\n    answer_comments: {enabled: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Challenges[0].AnswerComments; !a.Enabled || a.PerCycle() != 5 || c.BoardURL != "https://koth.example.org/boards" {
		t.Errorf("%+v %q", a, c.BoardURL)
	}
}
