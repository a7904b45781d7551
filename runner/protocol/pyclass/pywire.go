package pyclass

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// The pyclass wire format, written and read without reflection on the hot path: a forty
// game makes about a hundred calls, most of them answered by a boolean, and encoding
// them through encoding/json's reflection (and decoding each boolean a second time) once
// took a quarter of the daemon's time.

// appendRequest appends the request line (without its newline) of the calls idx of calls:
// {"t":cpu,"w":wall,"calls":[{"g":game,"m":method,"a":args},…]}, or, when the calls' arguments
// are lists of integers (engine.IntsAppender; see packable), the packed form
// {"t":cpu,"w":wall,"m":[method,…],"p":base64}: p holds, for each call, its game, the index
// of its method in m, the number of its arguments (-1: none, null) and the arguments, as little-endian
// 32-bit integers. The harness reads the packed form with two C calls (base64, then the
// ints into a list), where the JSON decoder parses every number out of its digits.
func appendRequest(b []byte, pk *packer, cpu, wall float64, calls []engine.Call, idx []int) ([]byte, error) {
	b = append(b, `{"t":`...)
	b = strconv.AppendFloat(b, cpu, 'g', -1, 64)
	b = append(b, `,"w":`...)
	b = strconv.AppendFloat(b, wall, 'g', -1, 64)
	if pk != nil && packable(calls, idx) {
		return pk.appendPacked(b, calls, idx), nil
	}
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

// packable says whether the calls idx of calls travel packed: at least one has integer
// arguments, the others have them too or none (an "end" call), and every game number fits
// in 32 bits. The form is the batch's, not the method's: a challenge module whose
// arguments pack reads both (forty's Handler.call), since one call of another kind in the
// batch sends the whole batch as JSON. A call without arguments is None in either form.
func packable(calls []engine.Call, idx []int) bool {
	ints := false
	for _, i := range idx {
		if g := calls[i].Game; g != int(int32(g)) {
			return false // past 2^31 games: as JSON, whole, rather than wrapped
		}
		switch calls[i].Args.(type) {
		case engine.IntsAppender:
			ints = true
		case nil:
		default:
			return false
		}
	}
	return ints
}

// packer is the scratch space of a bot's packed requests, which are encoded one at a time.
type packer struct {
	ints    []int32
	raw     []byte
	methods []string
}

// prefetchAhead is how many calls ahead of the one it encodes appendPacked prefetches.
const prefetchAhead = 4

// appendPacked appends the packed form's ,"m":[…],"p":"…"} to b.
func (pk *packer) appendPacked(b []byte, calls []engine.Call, idx []int) []byte {
	pk.ints, pk.methods = pk.ints[:0], pk.methods[:0]
	for k, i := range idx {
		if k+prefetchAhead < len(idx) {
			// The arguments of a game of thousands in flight are out of the caches: their
			// loads, a few calls ahead, overlap (engine.Prefetcher).
			if p, ok := calls[idx[k+prefetchAhead]].Args.(engine.Prefetcher); ok {
				p.Prefetch()
			}
		}
		c := &calls[i]
		m := slices.Index(pk.methods, c.Method)
		if m < 0 {
			m = len(pk.methods)
			pk.methods = append(pk.methods, c.Method)
		}
		at := len(pk.ints)
		pk.ints = append(pk.ints, int32(c.Game), int32(m), -1) // -1: no arguments (null)
		if a, ok := c.Args.(engine.IntsAppender); ok {
			pk.ints = a.AppendInts(pk.ints)
			pk.ints[at+2] = int32(len(pk.ints) - at - 3)
		}
	}
	pk.raw = pk.raw[:0]
	for _, v := range pk.ints {
		pk.raw = binary.LittleEndian.AppendUint32(pk.raw, uint32(v))
	}
	b = append(b, `,"m":[`...)
	for k, m := range pk.methods {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, m)
	}
	b = append(b, `],"p":"`...)
	b = base64.StdEncoding.AppendEncode(b, pk.raw)
	return append(b, `"}`...)
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
	// Rules: an answer the rules read as a move (engine.Fault.Ruled), the game module's word.
	Rules bool `json:"rules"`
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
// enough). The harness writes a batch whose results are all booleans as {"b":"1001…"} (a
// character per reply); a line of boolean, null and small integer results is read without
// the decoder too; any other goes through encoding/json. ok is false when the line is not
// a reply line of n replies.
func parseReplies(line []byte, n int, out []wireReply) ([]wireReply, bool) {
	out = out[:0]
	if bits, ok := bytes.CutPrefix(line, []byte(`{"b":"`)); ok {
		if len(bits) != n+2 || !bytes.Equal(bits[n:], []byte(`"}`)) {
			return out, false
		}
		for _, c := range bits[:n] {
			switch c {
			case '1':
				out = append(out, wireReply{R: jsonTrue})
			case '0':
				out = append(out, wireReply{R: jsonFalse})
			default:
				return out[:0], false
			}
		}
		return out, true
	}
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
