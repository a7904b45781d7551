package referee

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// The referee's protocol, one JSON object per line (docs/referee.md). kothd writes the
// game's first line (start); the referee then writes requests (request), one at a time, and
// kothd answers each ask or asks with the bots' replies (answer) until the referee writes
// the game's result.

// start is kothd's first line of a game.
type start struct {
	Game    int            `json:"game"`  // the game's number in the run (NoGame's -1 in validation)
	Seed    uint64         `json:"seed"`  // the game's own seed: the referee draws from it alone
	Seats   int            `json:"seats"` // seats 0..seats-1
	Names   []string       `json:"names"` // the bot in each seat, as the board names it
	Options map[string]any `json:"options,omitempty"`
}

// request is one line of the referee's.
type request struct {
	Ask    *int     `json:"ask,omitempty"`    // one bot's decision: its seat
	Msg    *string  `json:"msg,omitempty"`    // the line the bot reads (argv: its arguments, split at spaces)
	Args   []string `json:"args,omitempty"`   // argv bots: the arguments as they are
	Expect string   `json:"expect,omitempty"` // a regular expression the whole reply must match, else a bad-output fault
	// Asks are several bots' decisions at once (simultaneous moves): each an ask.
	Asks   []ask   `json:"asks,omitempty"`
	Log    *string `json:"log,omitempty"` // a line of the game's log (replays show it)
	Result *result `json:"result,omitempty"`
}

// ask is one decision of an asks request.
type ask struct {
	Seat   *int     `json:"seat"`
	Msg    *string  `json:"msg"`
	Args   []string `json:"args,omitempty"`
	Expect string   `json:"expect,omitempty"`
}

// result is a game's end: a score per seat (higher is better) or a rank per seat (1 is
// best; ties share a rank), and optional numbers per seat for the board's own columns.
type result struct {
	Scores []float64            `json:"scores,omitempty"`
	Ranks  []float64            `json:"ranks,omitempty"`
	Stats  map[string][]float64 `json:"stats,omitempty"`
}

// answer is kothd's reply to one ask: the bot's line, or the fault that stands for it.
type answer struct {
	Seat  int    `json:"seat"`
	Reply string `json:"reply"`
	Fault string `json:"fault,omitempty"` // timeout, crash, bad output, memory limit, output limit, killed, host fault
}

// Limits on a result's own columns, so a referee cannot blow the board up.
const (
	maxStats    = 8
	maxStatName = 24
)

var statName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9 %#/_.-]*$`)

// parse reads one of the referee's lines; the error is the protocol mistake, for the host.
// A run reads a line with json.Unmarshal, which skips keys it does not know (a line of no
// known kind is still refused); strict, as `kothd referee` reads it, names them too.
func parse(line []byte, strict bool) (*request, error) {
	var q request
	if strict {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("not a JSON request (ask, asks, log, result): %v", err)
		}
		if dec.More() {
			return nil, fmt.Errorf("more than one JSON value on the line")
		}
	} else if err := json.Unmarshal(line, &q); err != nil {
		return nil, fmt.Errorf("not a JSON request (ask, asks, log, result): %v", err)
	}
	kinds := 0
	for _, set := range []bool{q.Ask != nil, q.Asks != nil, q.Log != nil, q.Result != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, fmt.Errorf("a request is exactly one of ask, asks, log or result")
	}
	if q.Ask != nil && q.Msg == nil && q.Args == nil {
		return nil, fmt.Errorf("ask without msg")
	}
	if q.Ask == nil && (q.Msg != nil || q.Args != nil || q.Expect != "") {
		return nil, fmt.Errorf("msg, args and expect go with ask")
	}
	for i, a := range q.Asks {
		if a.Seat == nil || a.Msg == nil && a.Args == nil {
			return nil, fmt.Errorf("asks[%d] needs seat and msg", i)
		}
	}
	return &q, nil
}

// scores turns a result into one score per seat (higher is better): its scores, or for
// ranks the number of seats ranked below. The error is the referee's mistake.
func (r *result) scores(seats int) ([]float64, error) {
	if (r.Scores == nil) == (r.Ranks == nil) {
		return nil, fmt.Errorf("result needs scores or ranks (one of them)")
	}
	v := r.Scores
	if v == nil {
		v = r.Ranks
	}
	if len(v) != seats {
		return nil, fmt.Errorf("result has %d values for %d seats", len(v), seats)
	}
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("result holds %v", x)
		}
	}
	if len(r.Stats) > maxStats {
		return nil, fmt.Errorf("result has %d stats columns, at most %d", len(r.Stats), maxStats)
	}
	for name, col := range r.Stats {
		if len(name) > maxStatName || !statName.MatchString(name) {
			return nil, fmt.Errorf("stats column %q: a name of up to %d letters, digits, spaces and %%#/_.-", name, maxStatName)
		}
		if len(col) != seats {
			return nil, fmt.Errorf("stats column %q has %d values for %d seats", name, len(col), seats)
		}
		for _, x := range col {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("stats column %q holds %v", name, x)
			}
		}
	}
	if r.Scores != nil {
		return v, nil
	}
	out := make([]float64, seats)
	for i := range v {
		for j := range v {
			if v[j] > v[i] {
				out[i]++
			}
		}
	}
	return out, nil
}

// appendJSON appends the answer's JSON encoding, as encoding/json writes it (invalid UTF-8
// as U+FFFD), without reflection: kothd writes one per bot request.
func (a answer) appendJSON(b []byte) []byte {
	b = append(b, `{"seat":`...)
	b = strconv.AppendInt(b, int64(a.Seat), 10)
	b = append(b, `,"reply":`...)
	b = appendString(b, a.Reply)
	if a.Fault != "" {
		b = append(b, `,"fault":`...)
		b = appendString(b, a.Fault)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
