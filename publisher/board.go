// Package publisher renders a run's leaderboard (markdown for people, JSON for tools, SVG
// charts of the run and of the bots that moved over past runs) and delivers it to sinks: a
// directory, a GitHub repository.
package publisher

import (
	"math"
	"time"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/internal/stats"
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
	Since      *Since            `json:"since,omitempty"` // what this run is compared with
	History    []HistoryRun      `json:"history"`         // earlier runs and this one, oldest first
	// Separation estimates, for each group of bots whose ranks stay wide, how many more
	// games would separate them (separation.go); absent when every rank is settled.
	Separation []Separation `json:"separation,omitempty"`
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
	// Lowered are the times the run was played again with fewer games in flight, because a
	// bot ran out of memory holding many at once (cron/crowd.go); absent when it was not.
	Lowered []Lowered `json:"lowered,omitempty"`
	// NextRun is when the daemon's schedule next plays the challenge; null when no
	// schedule plays it (a run of kothd once: the host runs it when they do).
	NextRun *time.Time `json:"next_run"`
}

// Lowered is one restart of a run with fewer games in flight.
type Lowered struct {
	Bot      string `json:"bot"`       // the bot that ran out of memory
	InFlight int    `json:"in_flight"` // games in flight when it did
	MemoryMB int    `json:"memory_mb"` // its memory limit
	Next     int    `json:"next"`      // games in flight of the attempt after
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

// Since says what the run is compared with, for the Δ column and the changes: nothing (its
// first run), or the previous published run and how its field of bots differs from this
// one's (bots are the same bot when their answer and name are: see Row.Key).
type Since struct {
	FirstRun    bool  `json:"first_run"`
	PreviousRun int64 `json:"previous_run,omitempty"` // 0 on a first run, or when the previous board is unreadable
	Entered     int   `json:"entered"`                // bots on this board and not on the previous one
	Left        int   `json:"left"`                   // bots on the previous board and not on this one
	Edited      int   `json:"edited"`                 // bots on both whose answer's content changed
}

// FieldChanged says whether any bot entered, left or changed since the previous run.
func (s *Since) FieldChanged() bool { return s != nil && s.Entered+s.Left+s.Edited > 0 }

// Statistics says how the intervals and rank ranges were made.
type Statistics struct {
	Method     string  `json:"method"` // wilson, bootstrap, none
	Confidence float64 `json:"confidence"`
	Unit       string  `json:"unit"`  // what is independent: games, tournaments
	Units      int     `json:"units"` // how many
	Replicates int     `json:"replicates,omitempty"`
	Ties       string  `json:"ties"` // how ranks are decided, in words (the name is older than rank ranges)
}

// Row is one bot's line.
type Row struct {
	Rank        int       `json:"rank"`       // competition rank by score: equal scores share it
	RankRange   [2]int    `json:"rank_range"` // the ranks the statistics allow it: [1 + bots surely better, n − bots surely worse − bots with its very score]
	TieGroup    [2]int    `json:"tie_group"`  // deprecated: the same as rank_range (kept for readers of schema 1)
	Bot         string    `json:"bot"`
	Baseline    bool      `json:"baseline"`
	AnswerID    int64     `json:"answer_id,omitempty"`
	Link        string    `json:"link,omitempty"`
	Author      string    `json:"author,omitempty"`
	Revision    int64     `json:"revision,omitempty"`     // the answer's revision number on the site (as its edit history counts), when known
	Versions    int       `json:"versions,omitempty"`     // distinct contents of the answer kothd has seen, this one included
	ContentHash string    `json:"content_hash,omitempty"` // sha256 of the answer's extracted files
	Score       float64   `json:"score"`
	Interval    *Interval `json:"interval"` // null when a run cannot measure it
	Games       int       `json:"games"`
	Wins        int       `json:"wins"`
	Faults      Faults    `json:"faults"`            // decisions that did not end well, by outcome
	FirstFault  string    `json:"first_fault"`       // the first of them in full, '' if none
	Benched     *Benched  `json:"benched,omitempty"` // when the run stopped calling the bot
	Cells       []string  `json:"cells"`             // formatted values, one per Columns
	Move        *Move     `json:"move"`              // change since the previous run, when shown
}

// Interval is a 95 % interval of a score.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Benched says that a bot faulted on a stretch of decisions in a row (limits.fault_streak)
// and from which game of the run its calls got the rules' default without being sent.
type Benched struct {
	Game   int `json:"game"`   // the game (numbered from 0) of its first call not sent
	Streak int `json:"streak"` // faulted decisions in a row before it
	Calls  int `json:"calls"`  // calls answered with the default, none sent
	// Budget is the run budget (limits.run_budget, in seconds) a one-shot bot's decisions
	// used up, when that benched it rather than a streak; absent otherwise.
	Budget float64 `json:"budget,omitempty"`
}

// Faults counts non-OK decisions by outcome.
type Faults map[engine.Outcome]int

// Move is a bot's change since the previous published run, shown only when it is the
// bot's own and outside the noise (see moves): "new" for a bot newly entered, up or down
// for a rank move.
type Move struct {
	Kind   string `json:"kind"` // new, up, down
	From   int    `json:"from,omitempty"`
	Places int    `json:"places,omitempty"`
	Why    string `json:"why"` // new bot, edited, significant
}

// BotInfo is what the board shows of a bot beyond the engine's row: the bot as it was
// played (of it the board reads the author and the answer, for the credit and the link),
// and what the host learned of it besides: its answer's revision and content hash (from
// the store) and its faults (from the runner's accounting). Those stay out of engine.Bot,
// which carries what it takes to seat and start a bot: playing needs none of them.
type BotInfo struct {
	engine.Bot
	Revision    int64 // the answer's revision number on the site; 0 when not known
	Versions    int   // distinct contents of the answer seen, this one included
	ContentHash string
	Faults      Faults
	FirstFault  string
	Benched     *Benched
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
	Kind     string     `json:"kind"` // new, not entered, edited, withdrawn, restored, left, up, down
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
	Previous                 *Board       // the last published board, nil if none (or unreadable)
	FirstRun                 bool         // the challenge has no earlier run: nothing to compare with
	History                  []HistoryRun // earlier runs, oldest first (this one is added)
	Ending                   *Ending      // why an adaptive run stopped; nil for a fixed length
	Lowered                  []Lowered    // restarts with fewer games in flight (cron/crowd.go)
	NextRun                  *time.Time   // when the schedule plays the challenge next; nil: not scheduled
}

// Build makes the board of a run: ranks, rank ranges, intervals, moves and changes.
func Build(in Input) *Board {
	res := in.Result
	b := &Board{
		SchemaVersion: SchemaVersion, Challenge: in.Challenge, Title: in.Title, QuestionID: in.QuestionID,
		QuestionURL: questionURL(in.QuestionID),
		Run: RunInfo{ID: in.RunID, Seed: in.Seed, Date: in.Date.UTC(), Games: res.Games, Voided: res.Voided, Sandbox: in.Sandbox,
			Engine: in.Engine, EngineVersion: in.Engine + "@" + Version(), KothdVersion: Version()},
		Columns: res.Columns, Legend: res.Legend, Summary: res.Summary, Appendix: res.Appendix,
		NotEntered: BoundNotEntered(in.NotEntered),
	}
	if b.Title == "" {
		b.Title = in.Challenge
	}
	if in.NextRun != nil {
		t := in.NextRun.UTC()
		b.Run.NextRun = &t
	}
	b.Run.Lowered = in.Lowered
	if in.Ending != nil {
		e := *in.Ending
		e.Overlaps = nonNil(e.Overlaps)
		b.Run.Ending = &e
	}
	a := stats.Analyse(res.StatsTable(), in.Seed, stats.Confidence)
	b.Statistics = Statistics{Method: a.Method, Confidence: stats.Confidence, Unit: a.Unit, Units: a.Units, Ties: tieMethod(a.Method)}
	if a.Method == stats.MethodBootstrap {
		b.Statistics.Replicates = stats.BootstrapReplicates
	}
	for i, r := range res.Rows {
		info := in.Bots[r.Bot]
		row := Row{Rank: a.Rank[i], RankRange: a.Ranks[i], TieGroup: a.Ranks[i], Bot: r.Bot, Baseline: r.Baseline,
			AnswerID: info.AnswerID, Link: answerURL(info.AnswerID), Author: mdtext.Cut(info.Author, maxAuthor), Revision: info.Revision, Versions: info.Versions, ContentHash: info.ContentHash,
			Score: finite(r.Score), Games: r.Played, Wins: r.Wins, Faults: info.Faults, FirstFault: mdtext.Cut(info.FirstFault, maxFault), Benched: info.Benched, Cells: r.Cells}
		if !math.IsNaN(a.Lo[i]) && !math.IsInf(a.Lo[i], 0) && !math.IsInf(a.Hi[i], 0) {
			row.Interval = &Interval{Low: a.Lo[i], High: a.Hi[i]}
		}
		if row.Faults == nil {
			row.Faults = Faults{}
		}
		b.Rows = append(b.Rows, row)
	}
	b.Changes = boundChanges(compare(b, in))
	b.History = history(in.History, b, in.Previous)
	b.Separation = separations(b)
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

// tieMethod describes how ranks are decided, for the footer and the JSON.
func tieMethod(method string) string {
	switch method {
	case stats.MethodWilson, stats.MethodBootstrap:
		return "simultaneous 95 % intervals (each bot's at 1 − 5 %/n for n bots, Bonferroni); a bot ranks above another only when its interval lies wholly above the other's, and its rank range runs from 1 + the bots above it to n − the bots below it"
	default:
		return "one unit of play cannot order bots: every bot's rank range spans the table, except that identical scores share a rank"
	}
}
