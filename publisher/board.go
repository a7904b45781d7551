// Package publisher renders a run's leaderboard (markdown for people, JSON for tools, an
// SVG chart of past runs) and delivers it to sinks: a directory, a GitHub repository.
package publisher

import (
	"math"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/publisher/mdtext"
)

// SchemaVersion is the version of the board's JSON (docs/leaderboard-schema.json). It
// changes when a field changes meaning or goes away; new optional fields keep it.
const SchemaVersion = 1

// Board is everything a leaderboard page shows. Its JSON is the published machine-readable
// board and is what the store keeps to publish the board again without replaying.
type Board struct {
	SchemaVersion int        `json:"schema_version"`
	Challenge     string     `json:"challenge"`
	Title         string     `json:"title"`
	QuestionID    int64      `json:"question_id"`
	QuestionURL   string     `json:"question_url"`
	Run           RunInfo    `json:"run"`
	Statistics    Statistics `json:"statistics"`
	Columns       []string   `json:"columns"` // the challenge's own columns, as in Row.Cells
	// Legend is what each of Columns means, by column name (the engine's words).
	Legend     map[string]string `json:"legend,omitempty"`
	Rows       []Row             `json:"rows"`
	Summary    []string          `json:"summary"`           // the engine's lines above the table
	Appendix   string            `json:"appendix_markdown"` // the engine's markdown below it
	NotEntered []Rejected        `json:"not_entered"`
	Changes    []Change          `json:"changes"`
	History    []HistoryRun      `json:"history"` // earlier runs and this one, oldest first
}

// RunInfo identifies the run and what it takes to reproduce it.
type RunInfo struct {
	ID      int64     `json:"id"`
	Seed    uint64    `json:"seed,string"` // a string: JSON numbers lose precision above 2^53
	Date    time.Time `json:"date"`
	Games   int       `json:"games"`
	Voided  int       `json:"voided"`
	Sandbox string    `json:"sandbox"`
	Engine  string    `json:"engine"`
	// EngineVersion and KothdVersion: engines are compiled into kothd, so the engine's
	// version is kothd's build with the engine's name.
	EngineVersion string `json:"engine_version"`
	KothdVersion  string `json:"kothd_version"`
	// Ending says why a run of adaptive length stopped; absent for a run of fixed length.
	Ending *Ending `json:"ending,omitempty"`
	// NextRun is when the daemon's schedule next plays the challenge; null when no
	// schedule plays it (a run of kothd once: the host runs it when they do).
	NextRun *time.Time `json:"next_run"`
}

// Ending is why an adaptive run (config `adaptive:`) stopped: its order was settled, or
// its game budget was spent first.
type Ending struct {
	Reason     string  `json:"reason"`     // EndSettled or EndBudget
	Confidence float64 `json:"confidence"` // the level adjacent ranks had to be separated at
	Games      int     `json:"games"`      // games the run played
	Budget     int     `json:"budget"`     // games it could have played
	MinGames   int     `json:"min_games"`  // games it played before it could stop
	Batch      int     `json:"batch"`      // games between two looks at the order
	// Overlaps are the rank ranges still not separated at Confidence when the run ended
	// ([] when settled).
	Overlaps [][2]int `json:"overlaps"`
}

// Why an adaptive run ended.
const (
	EndSettled = "settled" // every pair of adjacent ranks separated at the confidence
	EndBudget  = "budget"  // the game budget spent first
)

// Statistics says how the intervals and tie groups were made.
type Statistics struct {
	Method     string  `json:"method"` // wilson, bootstrap, none
	Confidence float64 `json:"confidence"`
	Unit       string  `json:"unit"`  // what is independent: games, tournaments
	Units      int     `json:"units"` // how many
	Replicates int     `json:"replicates,omitempty"`
	Ties       string  `json:"ties"` // the tie-group method in words
}

// Row is one bot's line.
type Row struct {
	Rank        int       `json:"rank"`      // competition rank by score: equal scores share it
	TieGroup    [2]int    `json:"tie_group"` // first and last rank the statistics cannot separate
	Bot         string    `json:"bot"`
	Baseline    bool      `json:"baseline"`
	AnswerID    int64     `json:"answer_id,omitempty"`
	Link        string    `json:"link,omitempty"`
	Author      string    `json:"author,omitempty"`
	Revision    int64     `json:"revision,omitempty"`     // the answer's revision played (store id)
	ContentHash string    `json:"content_hash,omitempty"` // sha256 of the answer's extracted files
	Score       float64   `json:"score"`
	Interval    *Interval `json:"interval"` // null when a run cannot measure it
	Games       int       `json:"games"`
	Wins        int       `json:"wins"`
	Faults      Faults    `json:"faults"`      // decisions that did not end well, by outcome
	FirstFault  string    `json:"first_fault"` // the first of them in full, '' if none
	Cells       []string  `json:"cells"`       // formatted values, one per Columns
	Move        *Move     `json:"move"`        // change since the previous run, when shown
}

// Interval is a 95 % interval of a score.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Faults counts non-OK decisions by outcome.
type Faults map[engine.Outcome]int

// Move is a bot's change of rank since the previous published run, shown only when the
// move is outside the noise (the tie groups do not overlap) or the bots changed.
type Move struct {
	Kind   string `json:"kind"` // new, up, down
	From   int    `json:"from,omitempty"`
	Places int    `json:"places,omitempty"`
	Why    string `json:"why"` // new bot, edited, bots changed, significant
}

// BotInfo is what the board shows of a bot beyond the engine's row: the bot as it was
// played (of it the board reads the author and the answer, for the credit and the link),
// and what the host learned of it besides: its answer's revision and content hash (from
// the store) and its faults (from the runner's accounting). Those stay out of engine.Bot,
// which carries what it takes to seat and start a bot: playing needs none of them.
type BotInfo struct {
	engine.Bot
	Revision    int64
	ContentHash string
	Faults      Faults
	FirstFault  string
}

// Rejected is an answer (or one bot of it) that did not enter, with the reason.
type Rejected struct {
	AnswerID int64  `json:"answer_id"`
	Author   string `json:"author"`
	Name     string `json:"name"`
	Status   string `json:"status"` // rejected, failed build, failed validation, excluded
	Reason   string `json:"reason"`
}

// Change is one thing that happened since the previous run.
type Change struct {
	Kind     string     `json:"kind"` // new, edited, withdrawn, restored, up, down
	AnswerID int64      `json:"answer_id,omitempty"`
	Bot      string     `json:"bot,omitempty"` // for moves
	Title    string     `json:"title,omitempty"`
	Author   string     `json:"author,omitempty"`
	Edited   *time.Time `json:"edited,omitempty"` // the answer's last edit, for edits
	From     int        `json:"from,omitempty"`   // ranks, for moves
	To       int        `json:"to,omitempty"`
}

// HistoryRun is one past run's headline scores, for the chart.
type HistoryRun struct {
	Run    int64              `json:"run"`
	Date   time.Time          `json:"date"`
	Scores map[string]float64 `json:"scores"` // by bot
	// Intervals are the run's 95 % intervals by bot, for the chart's bands (absent for
	// runs published before boards kept them, and for bots without one).
	Intervals map[string]Interval `json:"intervals,omitempty"`
}

// Input is what a finished run hands the publisher.
type Input struct {
	Challenge, Title, Engine string
	QuestionID, RunID        int64
	Seed                     uint64
	Date                     time.Time
	Sandbox                  string
	Result                   *engine.Result
	Bots                     map[string]BotInfo // by leaderboard name
	NotEntered               []Rejected
	Changes                  []Change     // answers new, edited, withdrawn since the last run
	Previous                 *Board       // the last published board, nil if none
	History                  []HistoryRun // earlier runs, oldest first (this one is added)
	Ending                   *Ending      // why an adaptive run stopped; nil for a fixed length
	NextRun                  *time.Time   // when the schedule plays the challenge next; nil: not scheduled
}

// Build makes the board of a run: ranks, tie groups, intervals, moves and changes.
func Build(in Input) *Board {
	res := in.Result
	b := &Board{
		SchemaVersion: SchemaVersion, Challenge: in.Challenge, Title: in.Title, QuestionID: in.QuestionID,
		QuestionURL: questionURL(in.QuestionID),
		Run: RunInfo{ID: in.RunID, Seed: in.Seed, Date: in.Date.UTC(), Games: res.Games, Voided: res.Voided, Sandbox: in.Sandbox,
			Engine: in.Engine, EngineVersion: in.Engine + "@" + Version(), KothdVersion: Version()},
		Columns: res.Columns, Legend: res.Legend, Summary: res.Summary, Appendix: res.Appendix,
		NotEntered: BoundNotEntered(in.NotEntered), Changes: boundChanges(in.Changes),
	}
	if b.Title == "" {
		b.Title = in.Challenge
	}
	if in.NextRun != nil {
		t := in.NextRun.UTC()
		b.Run.NextRun = &t
	}
	if in.Ending != nil {
		e := *in.Ending
		e.Overlaps = nonNil(e.Overlaps)
		b.Run.Ending = &e
	}
	a := analyse(res, in.Seed)
	b.Statistics = Statistics{Method: a.method, Confidence: Confidence, Unit: a.unit, Units: a.units, Ties: tieMethod(a.method)}
	if a.method == MethodBootstrap {
		b.Statistics.Replicates = bootstrapReplicates
	}
	for i, r := range res.Rows {
		info := in.Bots[r.Bot]
		row := Row{Rank: a.rank[i], TieGroup: a.group[i], Bot: r.Bot, Baseline: r.Baseline,
			AnswerID: info.AnswerID, Link: answerURL(info.AnswerID), Author: mdtext.Cut(info.Author, maxAuthor), Revision: info.Revision, ContentHash: info.ContentHash,
			Score: finite(r.Score), Games: r.Played, Wins: r.Wins, Faults: info.Faults, FirstFault: mdtext.Cut(info.FirstFault, maxFault), Cells: r.Cells}
		if !math.IsNaN(a.lo[i]) && !math.IsInf(a.lo[i], 0) && !math.IsInf(a.hi[i], 0) {
			row.Interval = &Interval{Low: a.lo[i], High: a.hi[i]}
		}
		if row.Faults == nil {
			row.Faults = Faults{}
		}
		b.Rows = append(b.Rows, row)
	}
	b.Changes = append(b.Changes, moves(b, in.Previous)...)
	b.History = history(in.History, b, in.Previous)
	// Empty lists are [] in the JSON, not null: the schema says arrays.
	b.Columns, b.Rows, b.Summary = nonNil(b.Columns), nonNil(b.Rows), nonNil(b.Summary)
	b.NotEntered, b.Changes = nonNil(b.NotEntered), nonNil(b.Changes)
	for i := range b.Rows {
		b.Rows[i].Cells = nonNil(b.Rows[i].Cells)
	}
	return b
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// finite keeps a broken score (NaN, ±Inf: an engine bug) from making the JSON unwritable;
// the row's cells still show what the engine said.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func questionURL(id int64) string { return "https://codegolf.stackexchange.com/q/" + itoa(id) }

func answerURL(id int64) string {
	if id == 0 {
		return ""
	}
	return "https://codegolf.stackexchange.com/a/" + itoa(id)
}

// tieMethod describes the tie groups for the footer and the JSON.
func tieMethod(method string) string {
	switch method {
	case MethodWilson:
		return "adjacent bots compared by a two-sided two-proportion z-test, Holm-corrected over all adjacent pairs; pairs not separated at 95 % form a tie group"
	case MethodBootstrap:
		return "adjacent bots compared by a paired bootstrap of their score difference (two-sided), Holm-corrected over all adjacent pairs; pairs not separated at 95 % form a tie group"
	default:
		return "one unit of play cannot separate bots: all form one tie group, except that identical scores share a rank"
	}
}
