package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/cron"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/store"
)

// Health verdicts of status, worst last; the exit status is the index.
var healths = []string{"healthy", "degraded", "failing"}

// runStatus answers, per challenge and from the store alone: what happened last, what
// happens now (the run the kothd holding the data directory is playing) and next, whether
// the board is out, and why each answer is or is not in. Its exit status is the health:
// 0 healthy, 1 degraded (a publication target failing, a run interrupted waiting for the
// next cycle), 2 failing (the last run failed, or no target holds the board).
func runStatus(ctx context.Context, cl *cli, args []string) error {
	fs := cl.flags()
	var c common
	c.register(fs, false)
	challenge := fs.String("challenge", "", "only this `challenge`")
	asJSON := fs.Bool("json", false, "print the status as JSON (docs/commands.md)")
	if _, err := cl.parse(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(c.config)
	if err != nil {
		return err
	}
	if err := checkChallenge(cfg, *challenge); err != nil {
		return err
	}
	loc, err := cfg.Location()
	if err != nil {
		return err
	}
	rep := &statusReport{Health: healths[0], DataDir: cfg.DataDir}
	if pid, err := store.LockHolder(cfg.DataDir); err == nil {
		rep.PID = pid
	}
	// Read only: status creates and migrates nothing (it may run as another user than the
	// daemon, or be a newer binary).
	st, err := store.OpenReadOnly(ctx, filepath.Join(cfg.DataDir, "kothd.db"))
	if errors.Is(err, os.ErrNotExist) {
		rep.Note = fmt.Sprintf("no database in %s yet: kothd has not run with this data_dir", cfg.DataDir)
		return rep.print(cl.out, *asJSON, loc)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	for i := range cfg.Challenges {
		ch := &cfg.Challenges[i]
		if *challenge != "" && ch.Name != *challenge {
			continue
		}
		cs, err := challengeState(ctx, st, cfg, ch, loc, now, rep.PID)
		if err != nil {
			return fmt.Errorf("status of %s: %w", ch.Name, err)
		}
		rep.Challenges = append(rep.Challenges, cs)
		if slices.Index(healths, cs.Health) > slices.Index(healths, rep.Health) {
			rep.Health = cs.Health
		}
	}
	return rep.print(cl.out, *asJSON, loc)
}

// statusReport is what status prints, as text or as JSON (its field names are the JSON's,
// documented in docs/commands.md).
type statusReport struct {
	Health     string            `json:"health"` // the worst of the challenges'
	PID        int               `json:"pid"`    // the kothd holding the data directory; 0: none
	DataDir    string            `json:"data_dir"`
	Note       string            `json:"note,omitempty"`
	Challenges []challengeStatus `json:"challenges"`
}

type challengeStatus struct {
	Name         string        `json:"name"`
	Title        string        `json:"title"`
	QuestionID   int64         `json:"question_id"`
	Engine       string        `json:"engine"`
	Health       string        `json:"health"`
	Problems     []string      `json:"problems"`  // why not healthy
	LastRun      *runState     `json:"last_run"`  // the newest attempt
	BoardRun     *runState     `json:"board_run"` // the run of the board, when not the last
	Live         *cron.LiveRun `json:"live"`      // the run being played now
	NextRun      *time.Time    `json:"next_run"`
	Schedule     string        `json:"schedule"`
	LastFetch    *time.Time    `json:"last_fetch"`
	Publications []publication `json:"publications"` // configured targets only
	Answers      answerCounts  `json:"answers"`
	Bots         []botState    `json:"bots"`
	Changes      []store.Event `json:"-"`
	ChangeList   []changeState `json:"changes"`
	// Question is what kothd last did about the question's own table (question_board).
	Question     string `json:"question,omitempty"`
	questionLine string // the same, as the text's line
	// Comments counts the comments on answers not entered (answer_comments).
	Comments *store.CommentCounts `json:"comments,omitempty"`
	state    *store.Status        // for the text
	loc      *time.Location       // for the text
	pubs     []store.PublicationState
}

type runState struct {
	ID           int64      `json:"id"`
	State        string     `json:"state"` // done, playing, interrupted, abandoned, failed
	Error        string     `json:"error,omitempty"`
	Seed         uint64     `json:"seed,string"`
	Started      time.Time  `json:"started"`
	Finished     *time.Time `json:"finished"`
	GamesPlayed  int        `json:"games_played"`
	GamesPlanned int        `json:"games_planned"`
	run          *store.Run
}

type publication struct {
	Target   string     `json:"target"`
	OK       bool       `json:"ok"`
	At       *time.Time `json:"last_success"`
	Run      int64      `json:"run"`
	Commit   string     `json:"commit,omitempty"`
	FailedAt *time.Time `json:"failed_at"`
	Failure  string     `json:"failure,omitempty"`
}

type answerCounts struct {
	Active     int `json:"active"`
	Deleted    int `json:"deleted"`
	Entered    int `json:"bots_entered"`
	NotEntered int `json:"not_entered"`
	Pending    int `json:"not_prepared"`
}

type botState struct {
	Bot      string `json:"bot"`
	AnswerID int64  `json:"answer_id"`
	Author   string `json:"author"`
	Language string `json:"language,omitempty"`
	Status   string `json:"status"` // ok, rejected, failed build, failed validation, excluded, pending
	Reason   string `json:"reason,omitempty"`
	answer   store.AnswerBot
}

type changeState struct {
	At       time.Time `json:"at"`
	Kind     string    `json:"kind"`
	AnswerID int64     `json:"answer_id,omitempty"`
	Detail   string    `json:"detail"`
}

func unixPtr(u int64) *time.Time {
	if u == 0 {
		return nil
	}
	t := time.Unix(u, 0).UTC()
	return &t
}

// newRunState describes a run of ch; holder is the pid holding the data directory (0:
// none), which tells a run being played from one a killed kothd left 'running'. Its games
// planned are the engine's count (cron.PlannedGames), not the row's games asked for, which
// is 0 for a Bank Heist run of whole tournaments.
func newRunState(ch *config.Challenge, r *store.Run, holder int) *runState {
	if r == nil {
		return nil
	}
	s := &runState{ID: r.ID, State: r.State, Error: r.Error, Seed: r.Seed, Started: time.Unix(r.Started, 0).UTC(),
		Finished: unixPtr(r.Finished), GamesPlayed: r.GamesPlayed, GamesPlanned: cron.PlannedGames(ch, r), run: r}
	switch {
	case r.State == "running" && holder != 0:
		s.State = "playing"
	case r.State == "running":
		s.State, s.Error = "abandoned", store.AbandonedReason
	case r.Interrupted():
		s.State = "interrupted"
	}
	return s
}

// challengeState gathers one challenge's status and judges its health.
func challengeState(ctx context.Context, st *store.Store, cfg *config.Config, ch *config.Challenge, loc *time.Location, now time.Time, holder int) (challengeStatus, error) {
	cs := challengeStatus{Name: ch.Name, Title: ch.Title, QuestionID: ch.QuestionID, Engine: ch.Engine, Health: healths[0],
		Problems: []string{}, Schedule: cfg.ScheduleOf(ch), loc: loc}
	s, err := st.Status(ctx, ch.Name)
	if err != nil {
		return cs, err
	}
	cs.state = s
	cs.LastRun = newRunState(ch, s.LastAttempt, holder)
	if s.LastAttempt != nil && s.LastAttempt.State != "done" && s.LastRun != nil {
		cs.BoardRun = newRunState(ch, s.LastRun, holder)
	}
	if cs.LastRun != nil && cs.LastRun.State == "playing" {
		if l, err := cron.ReadLive(cfg.DataDir, ch.Name); err == nil && l != nil && l.PID == holder && l.Run == cs.LastRun.ID {
			cs.Live = l
		}
	}
	if sched, err := config.ParseSchedule(cs.Schedule, loc); err == nil {
		t := sched.Next(now).UTC()
		cs.NextRun = &t
	}
	cs.LastFetch = unixPtr(s.LastFetch)
	all, err := st.Publications(ctx, ch.Name)
	if err != nil {
		return cs, err
	}
	cs.Publications = []publication{}
	for _, target := range targetNames(cfg, ch) { // targets no longer configured are history
		p := store.PublicationState{Target: target}
		if i := slices.IndexFunc(all, func(x store.PublicationState) bool { return x.Target == target }); i >= 0 {
			p = all[i]
		}
		if target == cron.QuestionTarget(cfg.Site, ch.QuestionID) {
			if p, err = questionPublication(ctx, st, ch, target); err != nil {
				return cs, err
			}
		}
		cs.pubs = append(cs.pubs, p)
		cs.Publications = append(cs.Publications, publication{Target: p.Target, OK: p.At != 0 && p.FailedAt == 0, At: unixPtr(p.At),
			Run: p.RunID, Commit: p.Commit, FailedAt: unixPtr(p.FailedAt), Failure: p.Failure})
	}
	bots, err := st.AnswerBots(ctx, ch.Name)
	if err != nil {
		return cs, err
	}
	cs.Answers = answerCounts{Active: s.Answers, Deleted: s.Deleted}
	cs.Bots = []botState{}
	for _, b := range bots {
		bs := botState{Bot: orTitle(b), AnswerID: b.AnswerID, Author: b.Author, Language: b.Language, Status: b.Status, Reason: b.Reason, answer: b}
		switch b.Status {
		case "ok":
			cs.Answers.Entered++
		case "":
			bs.Status = "pending"
			cs.Answers.Pending++
		default:
			cs.Answers.NotEntered++
		}
		cs.Bots = append(cs.Bots, bs)
	}
	var q strings.Builder
	at := func(unix int64) string {
		if unix == 0 {
			return "never"
		}
		return time.Unix(unix, 0).In(loc).Format("2006-01-02 15:04 MST")
	}
	if err := printQuestionBoard(ctx, &q, st, ch, at); err != nil {
		return cs, err
	}
	cs.questionLine = q.String()
	if cs.Comments, err = commentCounts(ctx, st, ch); err != nil {
		return cs, err
	}
	cs.Question = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(q.String()), "question:"))
	cs.Changes = s.SinceLastRun
	cs.ChangeList = []changeState{}
	for _, e := range s.SinceLastRun {
		cs.ChangeList = append(cs.ChangeList, changeState{At: time.Unix(e.At, 0).UTC(), Kind: e.Kind, AnswerID: e.AnswerID, Detail: e.Detail})
	}
	cs.judge(s)
	return cs, nil
}

// judge sets the challenge's health and the problems that make it.
func (cs *challengeStatus) judge(s *store.Status) {
	worse := func(h, why string) {
		cs.Problems = append(cs.Problems, why)
		if slices.Index(healths, h) > slices.Index(healths, cs.Health) {
			cs.Health = h
		}
	}
	if r := cs.LastRun; r != nil {
		switch r.State {
		case "failed":
			worse("failing", fmt.Sprintf("run %d failed: %s", r.ID, oneLine(r.Error)))
		case "interrupted", "abandoned":
			worse("degraded", fmt.Sprintf("run %d was %s; the next cycle plays it again with its seed", r.ID, r.State))
		}
	}
	held := 0
	for _, p := range cs.Publications {
		if p.At != nil {
			held++
		}
		if p.FailedAt != nil {
			worse("degraded", fmt.Sprintf("publication to %s failing since %s: %s", p.Target, p.FailedAt.Format(time.RFC3339), oneLine(p.Failure)))
		}
	}
	if s.LastRun != nil && held == 0 {
		worse("failing", "no publication target holds a board")
	}
}

func (rep *statusReport) print(w io.Writer, asJSON bool, loc *time.Location) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.printText(w, loc)
	}
	if code := slices.Index(healths, rep.Health); code > 0 {
		return exitStatus(code)
	}
	return nil
}

func (rep *statusReport) printText(w io.Writer, loc *time.Location) {
	if rep.Note != "" {
		fmt.Fprintln(w, rep.Note)
		return
	}
	if rep.PID != 0 {
		fmt.Fprintf(w, "kothd pid %d holds %s\n", rep.PID, rep.DataDir)
	} else {
		fmt.Fprintf(w, "no kothd holds %s now\n", rep.DataDir)
	}
	for i := range rep.Challenges {
		rep.Challenges[i].printText(w)
	}
	fmt.Fprintf(w, "health: %s\n", rep.Health)
}

func (cs *challengeStatus) printText(w io.Writer) {
	at := func(unix int64) string {
		if unix == 0 {
			return "never"
		}
		return time.Unix(unix, 0).In(cs.loc).Format("2006-01-02 15:04 MST")
	}
	fmt.Fprintf(w, "%s: %s (question %d, engine %s)\n", cs.Name, cs.Title, cs.QuestionID, cs.Engine)
	// Last run: the newest attempt, and the board's run when that attempt did not finish.
	switch a := cs.LastRun; {
	case a == nil:
		fmt.Fprintln(w, "  last run:     none yet")
	default:
		fmt.Fprintf(w, "  last run:     %s\n", runLine(a, cs.Live, at))
		if l := cs.Live; l != nil && l.Shards != nil {
			fmt.Fprintf(w, "  shards:       %s\n", shardLine(l.Shards))
		}
		if cs.BoardRun != nil {
			fmt.Fprintf(w, "  board from:   %s\n", runLine(cs.BoardRun, nil, at))
		}
	}
	if cs.NextRun != nil {
		fmt.Fprintf(w, "  next run:     %s (schedule %q; when the daemon runs)\n", cs.NextRun.In(cs.loc).Format("2006-01-02 15:04 MST"), cs.Schedule)
	}
	fmt.Fprintf(w, "  last fetch:   %s\n", at(cs.state.LastFetch))
	for _, p := range cs.pubs {
		switch {
		case p.FailedAt != 0:
			fmt.Fprintf(w, "  published:    %s: FAILED at %s: %s (last success: %s)\n", p.Target, at(p.FailedAt), oneLine(p.Failure), at(p.At))
		case p.At == 0:
			fmt.Fprintf(w, "  published:    %s: never\n", p.Target)
		default:
			fmt.Fprintf(w, "  published:    %s: ok at %s, run %d%s\n", p.Target, at(p.At), p.RunID, prefixed(", commit ", p.Commit))
		}
	}
	io.WriteString(w, cs.questionLine)
	printComments(w, cs.Comments)
	n := cs.Answers
	fmt.Fprintf(w, "  answers:      %d active, %d deleted; %d bots entered, %d not entered", n.Active, n.Deleted, n.Entered, n.NotEntered)
	if n.Pending > 0 {
		fmt.Fprintf(w, ", %d answers not prepared yet", n.Pending)
	}
	fmt.Fprintln(w)
	for _, status := range []string{"ok", "", "pending"} { // entered, not entered, pending
		for _, b := range cs.Bots {
			switch {
			case status == "ok" && b.Status == "ok":
				fmt.Fprintf(w, "    entered      %-24s answer %d by %s%s\n", mdtext.Terminal(b.answer.Bot), b.AnswerID, mdtext.Terminal(b.Author), prefixed(", ", mdtext.Terminal(b.Language)))
			case status == "" && b.Status != "ok" && b.Status != "pending":
				fmt.Fprintf(w, "    NOT entered  %-24s answer %d by %s: %s: %s\n", mdtext.Terminal(b.Bot), b.AnswerID, mdtext.Terminal(b.Author), b.Status, oneLine(b.Reason))
			case status == "pending" && b.Status == "pending":
				fmt.Fprintf(w, "    pending      %-24s answer %d by %s: fetched, not built yet (the next cycle will)\n", mdtext.Terminal(b.Bot), b.AnswerID, mdtext.Terminal(b.Author))
			}
		}
	}
	fmt.Fprintf(w, "  changes since the last run: %d\n", len(cs.Changes))
	for _, e := range cs.Changes {
		about := ""
		if e.AnswerID != 0 {
			about = fmt.Sprintf("answer %d: ", e.AnswerID)
		}
		fmt.Fprintf(w, "    %s %-8s %s%s\n", at(e.At), e.Kind, about, oneLine(e.Detail))
	}
	if cs.Health != "healthy" {
		fmt.Fprintf(w, "  health:       %s: %s\n", cs.Health, mdtext.Terminal(strings.Join(cs.Problems, "; ")))
	}
}

// runLine describes a run: its number, state (and why it did not finish, or how far it
// is when being played now), seed and games.
func runLine(r *runState, live *cron.LiveRun, at func(int64) string) string {
	state := r.State
	played := r.GamesPlayed
	switch r.State {
	case "playing":
		state = "playing now"
		if live != nil {
			played = live.Done
			state += fmt.Sprintf(" (%.0f%%, %.1f games/s, ETA %s)", 100*float64(live.Done)/float64(max(live.Total, 1)),
				live.Rate, time.Duration(live.ETA*float64(time.Second)).Round(time.Second))
		}
	case "interrupted":
		state = "interrupted (the next cycle plays it again with its seed)"
	case "abandoned":
		state = "interrupted: kothd ended during the run without recording why (killed?); the next cycle plays it again with its seed"
	case "failed":
		state = "failed: " + oneLine(r.Error)
	}
	return fmt.Sprintf("run %d started %s, %s; seed %d, %d of %d games", r.ID, at(r.run.Started), state, r.Seed, played, r.GamesPlanned)
}

func orTitle(b store.AnswerBot) string {
	if b.Bot != "" {
		return b.Bot
	}
	if b.Title != "" {
		return b.Title
	}
	return "(untitled)"
}

// oneLine keeps a multi-line reason (a build log) to its first line and a sane length;
// the board has the rest.
func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	s = mdtext.Terminal(s) // a reason or a detail holds the answer's words
	if r := []rune(s); len(r) > 160 {
		s, cut = string(r[:160]), true
	}
	if cut {
		s += " …"
	}
	return s
}

// shardLine says where a cluster's run is: its shards by state, and who holds each one in
// flight.
func shardLine(st *cron.ShardStatus) string {
	line := fmt.Sprintf("%d queued, %d in flight, %d done", st.Queued, st.InFlight, st.Done)
	var held []string
	for _, i := range slices.Sorted(maps.Keys(st.Holders)) {
		held = append(held, fmt.Sprintf("%d on %s", i, st.Holders[i]))
	}
	if len(held) > 0 {
		line += " (" + strings.Join(held, ", ") + ")"
	}
	return line
}
