package pyclass

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
)

// Validation (the pyclass Validate): the bot plays a short game of its game's real engine
// against the game's baselines. It enters if at least one of its decisions ended well, or
// was an invalid move the rules answer (engine.Fault.Ruled: Ruins' MischievousKid, one of
// the original controller's own test bots, answers ['take', '5', '1'] and dies by the
// rules: that is play). A bot is refused only when it cannot play at all: every one of at
// least minDecisions decisions faulted in a way the rules do not answer, and the reason
// names the first fault and the input that caused it. Only decisions count: a bot whose
// constructor runs but whose every move raises (SafetyNet: `return` where the harness
// expects a generator) used to be entered and then faulted 4,031 times in a run.

// minDecisions is how many faulted decisions, and nothing else, refuse a bot: fewer say
// too little (a game's validation is sized to ask more; a bot asked fewer enters, and a
// fault streak benches it in a run if it never plays).
const minDecisions = 3

// Bounds of a "not entered" reason: the participant needs the fault and its input, not a
// page of them.
const (
	reasonDetailMax = 1000
	reasonInputMax  = 300
)

// decisions tallies a bot's decisions in a validation game: how many ended well, how many
// faulted, and the first fault with its input.
type decisions struct {
	ok, faulted int
	ruled       int // invalid moves the rules answered: play
	first       *engine.Fault
	input       string
	// The first fault of a call that is no decision (setting a game up): a bot that cannot
	// even be seated is never asked for a decision, and this says why.
	setup      *engine.Fault
	setupInput string
}

// noteSetup notes a call that is no decision.
func (d *decisions) noteSetup(f *engine.Fault, input func() string) {
	if f != nil && d.setup == nil {
		d.setup, d.setupInput = f, input()
	}
}

// note counts one decision; input describes it, asked only for the first fault.
func (d *decisions) note(f *engine.Fault, input func() string) {
	if f == nil {
		d.ok++
		return
	}
	if f.Ruled {
		d.ruled++
		return
	}
	d.faulted++
	if d.first == nil {
		d.first, d.input = f, input()
	}
}

// verdict is nil when the bot may enter: one decision at least ended well. A host fault as
// the first fault is the host's failure, returned as it is.
func (d *decisions) verdict() error {
	if d.ok > 0 || d.ruled > 0 {
		return nil
	}
	if d.first == nil && d.setup != nil {
		if d.setup.Outcome == engine.HostFault {
			return d.setup
		}
		return fmt.Errorf("it could not play a validation game: %s\ninput: %s",
			clip(d.setup.Error(), reasonDetailMax), clip(d.setupInput, reasonInputMax))
	}
	if d.first == nil {
		return fmt.Errorf("it was never asked for a decision in a validation game")
	}
	if d.first.Outcome == engine.HostFault {
		return d.first
	}
	if d.faulted < minDecisions {
		return nil // too few to say it cannot play
	}
	return fmt.Errorf("it faulted on every one of its %d decisions in a validation game; the first: %s\ninput: %s",
		d.faulted, clip(d.first.Error(), reasonDetailMax), clip(d.input, reasonInputMax))
}

// callArgs is a call's arguments as the bot received them (JSON).
func callArgs(args any) string {
	if a, ok := args.(engine.JSONAppender); ok {
		return string(a.AppendJSON(nil))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Sprint(args)
	}
	return string(b)
}

// clip cuts s to at most n bytes (on a rune boundary), saying how much was left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:cut], len(s)-cut)
}

// An answer's time budget, when the config sets none, is answerBudgetTimes the per-bot
// budget (run_budget), and a run's totalBudgetTimes it: many slow classes cannot add hours
// to everyone's run. (No per-bot budget: none of either.)
const (
	answerBudgetTimes = 2
	totalBudgetTimes  = 20
)

// budgetDefault is the configured budget, or times the per-bot one.
func budgetDefault(set config.Duration, perBot time.Duration, times int) time.Duration {
	if set > 0 {
		return time.Duration(set)
	}
	return perBot * time.Duration(times)
}
