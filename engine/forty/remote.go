package forty

import (
	"encoding/json"

	"github.com/kothd/kothd/engine"
)

// remoteSeat is a Seat whose decisions come from a bot over the lockstep table.
type remoteSeat struct {
	t    *engine.Table
	bot  int
	lost bool
}

func (s *remoteSeat) call(method string, args any) (bool, error) {
	r := s.t.Call(s.bot, method, args)
	if r.Fault != nil {
		if r.Fault.ProcessDied {
			s.lost = true
		}
		return false, r.Fault
	}
	var v bool
	if err := json.Unmarshal(r.Result, &v); err != nil {
		return false, &engine.Fault{Outcome: engine.BadOutput, Detail: "harness reply is not a boolean"}
	}
	return v, nil
}

func (s *remoteSeat) Begin(seat int) error {
	s.lost = false
	_, err := s.call("new", map[string]int{"seat": seat})
	return err
}

func (s *remoteSeat) Start(throws, scores []int, last bool) (bool, error) {
	return s.call("start", map[string]any{"throws": throws, "scores": scores, "last": last})
}

func (s *remoteSeat) Next(throws []int) (bool, error) {
	return s.call("next", map[string]any{"throws": throws})
}

func (s *remoteSeat) Lost() bool { return s.lost }
