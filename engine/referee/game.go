package referee

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kothd/kothd/engine"
)

// outcome is one game as the tally keeps it: who sat where and how it ended. A game the
// referee could not finish (it died, hung, broke the protocol) is voided, the host's
// fault, and scores nothing; its reason is kept for the board.
type outcome struct {
	Seats  []int                `json:"seats"`
	Scores []float64            `json:"scores,omitempty"`
	Stats  map[string][]float64 `json:"stats,omitempty"`
	Errors []int                `json:"errors,omitempty"` // faulted decisions per seat
	Void   string               `json:"void,omitempty"`
}

// maxLines bounds a game's lines from the referee (requests and logs): a referee caught in
// a loop that logs, or asks, for ever would otherwise hold its run for ever, each line in
// time.
const maxLines = 1_000_000

// player plays games of a run through its referee.
type player struct {
	r          engine.Run
	o          Options
	validation bool // every seat is r.Bots[0], each in a unit of its own
	trace      func(string)
	strict     bool // name unknown keys beside a request's own (kothd referee), not only requests of no known kind
	// ok and first are the validation's: decisions that ended well, the first fault.
	mu    sync.Mutex
	ok    int
	first *engine.Fault
	input string
}

// game plays game g (engine.NoGame in validation) with the given seats.
func (p *player) game(ctx context.Context, g int, seats []int) (out outcome) {
	out = outcome{Seats: seats, Errors: make([]int, len(seats))}
	void := func(format string, args ...any) outcome {
		out.Void = fmt.Sprintf(format, args...)
		out.Scores, out.Stats = nil, nil
		p.tracef("game voided (the host's referee): %s", out.Void)
		return out
	}
	if p.r.Referee == nil {
		return void("no referee: this build's host did not start one")
	}
	ref, err := p.r.Referee.Start(ctx)
	if err != nil {
		return void("%v", err)
	}
	defer ref.Close()
	units := map[int]bool{}
	defer func() {
		for u := range units {
			p.endUnit(u)
		}
	}()
	seed := engine.GameSeed(p.r.Seed, max(g, 0))
	names := make([]string, len(seats))
	for i, b := range seats {
		names[i] = p.r.Bots[b].Name
	}
	line, _ := json.Marshal(start{Game: g, Seed: seed, Seats: len(seats), Names: names, Options: p.o.Settings})
	timeout := p.o.timeout()
	turn := 0
	var buf []byte // the answers' encoding, reused: one per bot request
	for n := 1; ; n++ {
		if n > maxLines {
			return void("more than %d lines in one game: a referee that never ends its game", maxLines)
		}
		got, err := ref.Exchange(line, timeout)
		if err != nil {
			if ctx.Err() != nil {
				return void("run cancelled")
			}
			return void("after its line %d: %v", n-1, err)
		}
		q, err := parse(got, p.strict)
		if err != nil {
			return void("line %d %s: %v", n, quote(got), err)
		}
		line = nil
		switch {
		case q.Log != nil:
			p.tracef("log: %s", *q.Log)
		case q.Result != nil:
			scores, err := q.Result.scores(len(seats))
			if err != nil {
				return void("line %d %s: %v", n, quote(got), err)
			}
			out.Scores, out.Stats = scores, q.Result.Stats
			p.tracef("result: scores %v", scores)
			return out
		case q.Ask != nil:
			turn++
			a, err := p.ask(ctx, g, turn, seats, units, ask{Seat: q.Ask, Msg: q.Msg, Args: q.Args, Expect: q.Expect}, &out, nil)
			if err != nil {
				return void("line %d %s: %v", n, quote(got), err)
			}
			buf = a.appendJSON(buf[:0])
			line = buf
		default: // asks
			turn++
			replies := make([]answer, len(q.Asks))
			errs := make([]error, len(q.Asks))
			seen := map[int]bool{}
			for _, a := range q.Asks {
				if seen[*a.Seat] {
					return void("line %d %s: seat %d asked twice at once", n, quote(got), *a.Seat)
				}
				seen[*a.Seat] = true
			}
			traces := make([][]string, len(q.Asks)) // traced in the asks' order, whatever answered first
			var wg sync.WaitGroup
			for i, a := range q.Asks {
				wg.Go(func() { replies[i], errs[i] = p.ask(ctx, g, turn, seats, nil, a, &out, &traces[i]) })
			}
			wg.Wait()
			for _, tr := range traces {
				for _, l := range tr {
					p.tracef("%s", l)
				}
			}
			for i, a := range q.Asks {
				if errs[i] != nil {
					return void("line %d %s: %v", n, quote(got), errs[i])
				}
				units[p.unit(g, *a.Seat)] = true
			}
			line, _ = json.Marshal(struct {
				Replies []answer `json:"replies"`
			}{replies})
		}
	}
}

// unit is the unit of play a seat's bot is reached in: the game's, or in validation (every
// seat the same bot) one per seat, so each seat has a process of its own.
func (p *player) unit(g, seat int) int {
	if p.validation {
		return seat
	}
	return g
}

func (p *player) endUnit(u int) {
	switch {
	case p.r.Lines != nil:
		p.r.Lines.EndUnit(u)
	case p.r.Launch != nil:
		p.r.Launch.EndUnit(u)
	}
}

// askInput describes a decision in the bot's accounting (its first fault shows it).
type askInput struct {
	Game int      `json:"game"`
	Seat int      `json:"seat"`
	Msg  string   `json:"msg"`
	Args []string `json:"args,omitempty"`
}

// errHost marks a request the rules cannot send: the referee's mistake.
type errHost struct{ msg string }

func (e errHost) Error() string { return e.msg }

// ask relays one decision to the bot in a seat and returns what the referee reads of it.
// units (nil for asks played at once, which note their units afterwards) collects the
// units used. An error is the referee's mistake (no such seat, a bad pattern).
func (p *player) ask(ctx context.Context, g, turn int, seats []int, units map[int]bool, a ask, out *outcome, traced *[]string) (answer, error) {
	tracef := p.tracef
	if traced != nil { // one of several asks at once: its lines are kept for the caller
		tracef = func(format string, args ...any) {
			if p.trace != nil {
				*traced = append(*traced, fmt.Sprintf(format, args...))
			}
		}
	}
	s := *a.Seat
	if s < 0 || s >= len(seats) {
		return answer{}, errHost{fmt.Sprintf("seat %d does not exist (the game has seats 0 to %d)", s, len(seats)-1)}
	}
	var check func(string) *engine.Fault
	if a.Expect != "" {
		re, err := regexp.Compile("^(?:" + a.Expect + ")$")
		if err != nil {
			return answer{}, errHost{fmt.Sprintf("expect %q: %v", a.Expect, err)}
		}
		check = func(reply string) *engine.Fault {
			if re.MatchString(reply) {
				return nil
			}
			return &engine.Fault{Outcome: engine.BadOutput, Detail: fmt.Sprintf("reply %s does not match %s", quote([]byte(reply)), a.Expect)}
		}
	}
	msg := ""
	if a.Msg != nil {
		msg = *a.Msg
	}
	if strings.ContainsAny(msg, "\n\r") {
		return answer{}, errHost{"msg holds a line break: a bot reads one line per decision"}
	}
	bot, unit := seats[s], p.unit(g, s)
	if units != nil {
		units[unit] = true
	}
	at := engine.At{Game: g, Turn: turn}
	input := &askInput{Game: g, Seat: s, Msg: msg, Args: a.Args}
	if p.trace != nil { // formatting costs even unused
		tracef("seat %d (%s) ← %s", s, p.r.Bots[bot].Name, msg)
	}
	var reply string
	var f *engine.Fault
	switch {
	case p.r.Lines != nil:
		reply, f = p.r.Lines.Ask(ctx, unit, at, bot, msg, input, check)
	case p.r.Launch != nil:
		args := a.Args
		if args == nil {
			args = strings.Fields(msg)
		}
		reply, f = p.r.Launch.Launch(ctx, unit, at, bot, args, input, check)
		reply = strings.TrimSpace(reply)
	default:
		return answer{}, errHost{"no bots connected"}
	}
	if f != nil && f.Outcome == engine.HostFault {
		return answer{}, fmt.Errorf("the host could not reach seat %d's bot: %s", s, f.Detail)
	}
	p.note(f, input)
	if f != nil {
		if p.trace != nil { // formatting costs even unused
			tracef("seat %d → fault: %s", s, f.Error())
		}
		p.mu.Lock()
		out.Errors[s]++
		p.mu.Unlock()
		return answer{Seat: s, Fault: string(f.Outcome)}, nil
	}
	if p.trace != nil { // formatting costs even unused
		tracef("seat %d → %s", s, reply)
	}
	return answer{Seat: s, Reply: reply}, nil
}

// note keeps the validation's count of good decisions and its first fault.
func (p *player) note(f *engine.Fault, input any) {
	if !p.validation {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == nil {
		p.ok++
		return
	}
	if p.first == nil {
		p.first = f
		in, _ := json.Marshal(input)
		p.input = string(in)
	}
}

func (p *player) tracef(format string, args ...any) {
	if p.trace != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.trace(fmt.Sprintf(format, args...))
	}
}

// quote shows a line of the referee's in a message, cut short.
func quote(b []byte) string {
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}
