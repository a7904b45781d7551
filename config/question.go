package config

import "time"

// checkQuestionBoard checks a question_board block: a table of 1 to MaxQuestionTop rows,
// edited at most once an hour (each edit bumps the question on the site's front page).
func (c *Config) checkQuestionBoard(ch *Challenge, at func(key, format string, args ...any)) {
	q := ch.QuestionBoard
	if q == nil {
		return
	}
	if q.Top < 0 || q.Top > MaxQuestionTop {
		at("question_board.top", "question_board.top must be between 1 and %d rows (0 or absent: %d), not %d", MaxQuestionTop, DefaultQuestionTop, q.Top)
	}
	if d := time.Duration(q.MinInterval); d != 0 && d < MinQuestionInterval {
		at("question_board.min_interval", "question_board.min_interval must be at least %s, not %s: every edit bumps the question to the front page of the site", MinQuestionInterval, d)
	}
}
