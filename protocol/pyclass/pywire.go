package pyclass

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// The pyclass wire format, written and read without reflection on the hot path: a forty
// game makes about a hundred calls, most of them answered by a boolean, and encoding
// them through encoding/json's reflection (and decoding each boolean a second time) once
// took a quarter of the daemon's time.

// appendRequest appends the request line (without its newline) of the calls idx of calls:
// {"t":cpu,"w":wall,"calls":[{"g":game,"m":method,"a":args},…]}.
func appendRequest(b []byte, cpu, wall float64, calls []engine.Call, idx []int) ([]byte, error) {
	b = append(b, `{"t":`...)
	b = strconv.AppendFloat(b, cpu, 'g', -1, 64)
	b = append(b, `,"w":`...)
	b = strconv.AppendFloat(b, wall, 'g', -1, 64)
	b = append(b, `,"calls":[`...)
	for k, i := range idx {
		c := &calls[i]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"g":`...)
		b = strconv.AppendInt(b, int64(c.Game), 10)
		b = append(b, `,"m":`...)
		b = appendJSONString(b, c.Method)
		b = append(b, `,"a":`...)
		switch a := c.Args.(type) {
		case nil:
			b = append(b, "null"...)
		case engine.JSONAppender:
			b = a.AppendJSON(b)
		default:
			j, err := json.Marshal(a)
			if err != nil {
				return b, err
			}
			b = append(b, j...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// appendJSONString appends s as a JSON string: as it is when it needs no escaping (a
// method name), else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

type wireReply struct {
	R json.RawMessage `json:"r"`
	F string          `json:"f"`
	D string          `json:"d"`
	// Lost: the call named a game whose instance died with an earlier process.
	Lost bool `json:"lost"`
	// Wall: a timeout the harness says the wall clock stopped (its limit already pushed
	// back by the time the host kept the bot from a CPU, starve.go). The bot's word, kept
	// for diagnosis: the timeout is the bot's either way.
	Wall bool `json:"wall"`
}

// The results every boolean reply shares (engine.Reply: read, never written into), and
// those of null and of the small integers (a White Elephant answer: open, or the table
// index to steal).
var (
	jsonTrue  = json.RawMessage("true")
	jsonFalse = json.RawMessage("false")
	jsonNull  = json.RawMessage("null")
	jsonSmall = func() (s [100]json.RawMessage) {
		for i := range s {
			s[i] = json.RawMessage(strconv.Itoa(i))
		}
		return s
	}()
)

// smallReply reads a reply {"r":N} with 0 <= N < 100 at the start of b, as written by the
// harness (no leading zero, no spaces), and returns N and the reply's length.
func smallReply(b []byte) (n, size int, ok bool) {
	const head = `{"r":`
	if !bytes.HasPrefix(b, []byte(head)) {
		return 0, 0, false
	}
	d := b[len(head):]
	k := 0
	for k < len(d) && k < 3 && '0' <= d[k] && d[k] <= '9' {
		n = n*10 + int(d[k]-'0')
		k++
	}
	if k == 0 || k == 3 || (k == 2 && d[0] == '0') || k >= len(d) || d[k] != '}' {
		return 0, 0, false
	}
	return n, len(head) + k + 1, true
}

// parseReplies reads a reply line that must hold n replies into out (reused when large
// enough). A line of boolean, null and small integer results only, the common one, is read
// without the decoder;
// any other goes through encoding/json. ok is false when the line is not a reply line of
// n replies.
func parseReplies(line []byte, n int, out []wireReply) ([]wireReply, bool) {
	out = out[:0]
	if rest, ok := bytes.CutPrefix(line, []byte(`{"replies":[`)); ok {
		for len(out) < n {
			switch {
			case bytes.HasPrefix(rest, []byte(`{"r":true}`)):
				out = append(out, wireReply{R: jsonTrue})
				rest = rest[len(`{"r":true}`):]
			case bytes.HasPrefix(rest, []byte(`{"r":false}`)):
				out = append(out, wireReply{R: jsonFalse})
				rest = rest[len(`{"r":false}`):]
			case bytes.HasPrefix(rest, []byte(`{"r":null}`)):
				out = append(out, wireReply{R: jsonNull})
				rest = rest[len(`{"r":null}`):]
			default:
				v, size, ok := smallReply(rest)
				if !ok {
					return parseRepliesSlow(line, n, out)
				}
				out = append(out, wireReply{R: jsonSmall[v]})
				rest = rest[size:]
			}
			if len(out) < n {
				if len(rest) == 0 || rest[0] != ',' {
					return parseRepliesSlow(line, n, out)
				}
				rest = rest[1:]
			}
		}
		if bytes.Equal(rest, []byte(`]}`)) {
			return out, true
		}
	}
	return parseRepliesSlow(line, n, out)
}

func parseRepliesSlow(line []byte, n int, out []wireReply) ([]wireReply, bool) {
	// Not into out: the decoder would copy results into the shared jsonTrue.
	var resp struct {
		Replies []wireReply `json:"replies"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || len(resp.Replies) != n {
		return out[:0], false
	}
	return resp.Replies, true
}
