package engine

import "github.com/kothd/kothd/internal/stats"

// Result is what a tournament produces: a table in the challenge's own columns, ready for a
// publisher to render and a store to record. Rows are sorted best first by the engine, which
// knows the challenge's tie-breaks.
type Result struct {
	Games  int // games played and scored
	Voided int // games voided by host faults
	// Discarded names games that were started but are not part of the result (Ruins plays
	// its finals ahead of its stopping rule and drops those after the game that meets it).
	// Their decisions are not charged to the bots, so the fault counts, like the table, are
	// the same whatever the number of games in flight. Game numbers are those of
	// engine.Call.Game. Not stored: the board shows only what counted.
	Discarded []int    `json:"-"`
	Columns   []string // the challenge's columns after "Bot", e.g. Win%, Wins, Played
	// Legend says what each of Columns means, by name, for the board's legend (readers
	// of a board meet "Throws" and "Success%" without the question at hand).
	Legend map[string]string `json:",omitempty"`
	Rows   []Row
	// Summary holds lines shown above the table (the original controller's header lines).
	Summary []string
	// Appendix is markdown shown below the table (e.g. the forty game's percentiles).
	Appendix string

	// How noisy the scores are, for the publisher's intervals and tie groups (optional).
	//
	// WinRate says Score is 100·Wins/Played over independent games: the publisher uses
	// Wilson intervals and two-proportion tests on the counts.
	WinRate bool `json:",omitempty"`
	// Units, UnitName and Resample let the publisher bootstrap: the run consists of Units
	// independent units of play (games; tournaments where state carries from game to game),
	// and Resample rescores every row as if the run had been a given multiset of them.
	// Not stored: the published board keeps what it shows.
	Units    int       `json:",omitempty"`
	UnitName string    `json:",omitempty"` // "games", "tournaments"
	Resample Resampler `json:"-"`
}

// Resampler returns every row's Score, by Bot, as if the run had consisted of the given
// units (indices in [0, Result.Units), repeats allowed). An interface rather than per-unit
// samples because not every score is a sum or mean of per-game values (Mafia's is relative
// to the field's mean win rates per role). Implementations hold plain data, no functions,
// so results stay comparable with reflect.DeepEqual in determinism tests.
type Resampler interface {
	Rescore(units []int) map[string]float64
}

// Samples is the Resampler of a score that is the sum (or the mean) of per-unit values.
type Samples struct {
	Bots   []string    // leaderboard names
	Values [][]float64 // Values[unit][bot]
	Mean   bool        // the score is the mean over units, not the sum
}

// Rescore sums (or averages) each bot's values over the units.
func (s *Samples) Rescore(units []int) map[string]float64 {
	out := make(map[string]float64, len(s.Bots))
	for b, name := range s.Bots {
		sum := 0.0
		for _, u := range units {
			sum += s.Values[u][b]
		}
		if s.Mean && len(units) > 0 {
			sum /= float64(len(units))
		}
		out[name] = sum
	}
	return out
}

// Row is one bot's line of the table.
type Row struct {
	Bot      string
	Baseline bool
	Score    float64  // the number the table is sorted by (Win%, total score, credits)
	Played   int      // games in which the bot was seated
	Wins     int      // games won, where the challenge has winners
	Cells    []string // formatted values, one per Result.Columns
	Errors   int      // faults the engine handled for this bot (rules' default applied)
}

// StatsTable is what the statistics (package stats) read of the result: its rows, best
// first, and how noisy their scores are. The rows are copied; Resample is shared.
func (r *Result) StatsTable() stats.Table {
	t := stats.Table{Games: r.Games, WinRate: r.WinRate, Units: r.Units, UnitName: r.UnitName, Resample: r.Resample}
	for _, row := range r.Rows {
		t.Rows = append(t.Rows, stats.Row{Bot: row.Bot, Score: row.Score, Wins: row.Wins, Played: row.Played})
	}
	return t
}
