package forty

import (
	"bytes"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// remoteSeat is a Seat whose decisions come from a bot over the lockstep table. Its calls'
// arguments write their own JSON (engine.JSONAppender) from fields the seat reuses: a
// game waits for each reply before its next call, so they are never in two calls at once.
type remoteSeat struct {
	t     *engine.Table
	bot   int
	lost  bool
	begin beginArgs
	start startArgs
	next  nextArgs
}

func (s *remoteSeat) call(method string, args any) (bool, error) {
	r := s.t.Call(s.bot, method, args)
	if r.Fault != nil {
		if r.Fault.ProcessDied {
			s.lost = true
		}
		return false, r.Fault
	}
	switch {
	case bytes.Equal(r.Result, []byte("true")):
		return true, nil
	case bytes.Equal(r.Result, []byte("false")):
		return false, nil
	}
	return false, &engine.Fault{Outcome: engine.BadOutput, Detail: "harness reply is not a boolean"}
}

func (s *remoteSeat) Begin(seat int) error {
	s.lost = false
	s.begin = beginArgs{Seat: seat}
	_, err := s.call("new", &s.begin)
	return err
}

func (s *remoteSeat) Start(throws, scores []int, last bool) (bool, error) {
	s.start = startArgs{Throws: throws, Scores: scores, Last: last}
	return s.call("start", &s.start)
}

func (s *remoteSeat) Next(throws []int) (bool, error) {
	s.next = nextArgs{Throws: throws}
	return s.call("next", &s.next)
}

func (s *remoteSeat) Lost() bool { return s.lost }

// The arguments of the harness's methods (harness.py, Handler.call). The json tags give
// the same encoding through encoding/json, for whoever logs a call.
type beginArgs struct {
	Seat int `json:"seat"`
}

type startArgs struct {
	Throws []int `json:"throws"`
	Scores []int `json:"scores"`
	Last   bool  `json:"last"`
}

type nextArgs struct {
	Throws []int `json:"throws"`
}

func (a *beginArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"seat":`...)
	b = strconv.AppendInt(b, int64(a.Seat), 10)
	return append(b, '}')
}

func (a *startArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"throws":`...)
	b = appendInts(b, a.Throws)
	b = append(b, `,"scores":`...)
	b = appendInts(b, a.Scores)
	b = append(b, `,"last":`...)
	b = strconv.AppendBool(b, a.Last)
	return append(b, '}')
}

func (a *nextArgs) AppendJSON(b []byte) []byte {
	b = append(b, `{"throws":`...)
	b = appendInts(b, a.Throws)
	return append(b, '}')
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
