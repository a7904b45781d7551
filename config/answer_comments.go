package config

import (
	"net/url"
	"strconv"
	"strings"
)

// AnswerComments is a challenge's comments to its participants (docs/leaderboard.md,
// "Comments on answers not entered"): when an answer's current revision is not entered,
// kothd says why in one comment on that answer, with the access token of question_board
// (SE_ACCESS_TOKEN, never in this file).
type AnswerComments struct {
	Enabled bool `yaml:"enabled"`
	// MaxPerCycle bounds the comments one cycle posts (default DefaultCommentsPerCycle);
	// the rest wait for the next cycle.
	MaxPerCycle int `yaml:"max_per_cycle"`
}

// Defaults and bounds of answer_comments.
const (
	DefaultCommentsPerCycle = 5
	MaxCommentsPerCycle     = 50
)

// PerCycle is the most comments one cycle posts.
func (a *AnswerComments) PerCycle() int {
	if a.MaxPerCycle == 0 {
		return DefaultCommentsPerCycle
	}
	return a.MaxPerCycle
}

// checkAnswerComments checks an answer_comments block.
func (c *Config) checkAnswerComments(ch *Challenge, at func(key, format string, args ...any)) {
	a := ch.AnswerComments
	if a == nil {
		return
	}
	if a.MaxPerCycle < 0 || a.MaxPerCycle > MaxCommentsPerCycle {
		at("answer_comments.max_per_cycle", "answer_comments.max_per_cycle must be between 1 and %d (0 or absent: %d), not %d", MaxCommentsPerCycle, DefaultCommentsPerCycle, a.MaxPerCycle)
	}
}

// checkBoardURL checks board_url: an absolute http(s) URL, as the links are public.
func checkBoardURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(s, " \t\n()<>") {
		return "board_url must be an absolute http:// or https:// URL (where the public reads output_dir), not " + strconv.Quote(s)
	}
	return ""
}
