package cron

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/internal/names"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/scraper"
)

// CheckReport is what one answer would become in the next cycle: what its author needs to
// know before the board says it.
type CheckReport struct {
	AnswerID int64
	Author   string
	Title    string
	Language string   // the language table's key ("" when none applies)
	Files    []string // extracted files, "name (N bytes)"
	Build    []string // the build command, when the language has one
	Reject   string   // why the answer yields no bot at all (extraction, build, preparation)
	Bots     []CheckedBot
}

// CheckedBot is one bot the answer yields and its fate.
type CheckedBot struct {
	Name   string
	Status string // "would be entered", or rejected, excluded, failed validation
	Reason string // for anything but entry: what went wrong (the input that broke it)
}

// WouldEnter is the status of a bot that passed every check.
const WouldEnter = "would be entered"

// Check takes one answer through what a cycle does before play (fetch, extract, build,
// validate) and reports it. It plays no tournament and changes nothing the host keeps: the
// answer is built and validated in a scratch data directory, and the store (when there is
// one) is only read, to find names other answers already hold.
func (c *Cycle) Check(ctx context.Context, ch *config.Challenge, answerID int64) (*CheckReport, error) {
	answers, err := c.Source.Answers(ctx, ch.QuestionID)
	if err != nil {
		return nil, err
	}
	subs := scraper.ExtractAll(answers, scraper.RulesFromConfig(c.Config, ch))
	i := slices.IndexFunc(subs, func(s scraper.Submission) bool { return s.AnswerID == answerID })
	if i < 0 {
		return nil, fmt.Errorf("answer %d is not among the %d answers of question %d (challenge %s)", answerID, len(subs), ch.QuestionID, ch.Name)
	}
	s := subs[i]
	rep := &CheckReport{AnswerID: s.AnswerID, Author: s.Author, Title: s.Title, Language: s.Language, Reject: s.Reject}
	for _, f := range s.Files {
		rep.Files = append(rep.Files, fmt.Sprintf("%s (%d bytes)", f.Name, len(f.Content)))
	}
	if s.Reject != "" {
		return rep, nil
	}
	rep.Build = c.Config.Languages[s.Language].Build

	// A scratch data directory: materialising, building and validating write there only.
	tmp, err := os.MkdirTemp("", "kothd-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	scratchCfg := *c.Config
	scratchCfg.DataDir = tmp
	cy := *c
	cy.Config = &scratchCfg
	env, a, err := cy.newEnv(ch)
	if err != nil {
		return nil, err
	}
	env.Config = &scratchCfg
	dir, err := cy.materialise(env, s)
	if err != nil {
		return nil, err
	}
	entries, err := a.Prepare(ctx, &env.Env, protocol.Submission{AnswerID: s.AnswerID, Author: s.Author, Title: s.Title, Heading: s.HeadingText, Language: s.Language, Dir: dir})
	if err != nil {
		if isHostFault(err) {
			return nil, fmt.Errorf("prepare answer %d: %w", s.AnswerID, err)
		}
		rep.Reject = err.Error()
		return rep, nil
	}
	taken, err := c.takenNames(ctx, env, a, s.AnswerID)
	if err != nil {
		return nil, err
	}
	cp, err := capsOf(env.Challenge)
	if err != nil {
		return nil, err
	}
	overName, overReason, over := cp.overCap(entries)
	if over {
		entries = entries[:cp.classesPerAnswer] // the rest: one line, below
	}
	for k, e := range entries {
		b := CheckedBot{Name: shownName(e.Name), Status: WouldEnter}
		capped := cp.admit(k, e.Name)
		switch {
		case capped != nil:
			b.Status, b.Reason = "rejected", capped.Error()
		case taken.Clash(e.Name) != "":
			b.Status, b.Reason = "rejected", taken.Clash(e.Name)
		case names.Listed(ch.Exclude, e.Name):
			b.Status, b.Reason = "excluded", "excluded by the host"
		default:
			// The cycle's own validation (prepare.go), so check says what the cycle will.
			if err := validateBot(ctx, env, a, e); err != nil {
				if isHostFault(err) {
					return nil, fmt.Errorf("validate %s: %w", e.Name, err)
				}
				b.Status, b.Reason = "failed validation", err.Error()
			}
		}
		rep.Bots = append(rep.Bots, b)
	}
	if over {
		rep.Bots = append(rep.Bots, CheckedBot{Name: overName, Status: "rejected", Reason: overReason})
	}
	return rep, nil
}

// takenNames are the names a checked answer's bots may not take: the built-in bots', and
// those of earlier answers entered in the last cycle (read from the store, if there is one;
// answer ids grow with creation, and the earlier answer keeps a contested name).
func (c *Cycle) takenNames(ctx context.Context, env *PlayEnv, a protocol.Protocol, self int64) (*names.Claims, error) {
	var taken names.Claims
	builtins, err := a.Builtins(ctx, &env.Env)
	if err != nil {
		return nil, fmt.Errorf("built-in bots: %w", err)
	}
	for _, b := range builtins {
		taken.Claim(b.Name, "a built-in bot")
	}
	if c.Store == nil {
		return &taken, nil
	}
	bots, err := c.Store.AnswerBots(ctx, env.Challenge.Name)
	if err != nil {
		return nil, err
	}
	for _, b := range bots {
		if b.AnswerID < self && b.Status == "ok" {
			taken.Claim(b.Bot, fmt.Sprintf("answer %d by %s", b.AnswerID, b.Author))
		}
	}
	return &taken, nil
}
