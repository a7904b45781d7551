package bankheist

import (
	"encoding/json"
	"fmt"
)

// A checkpoint of a contest holds its finished tournaments: what the table takes from each
// (final credits and standings, games played and voided, faults, saturations). The
// tournaments after it start from their seeds, so nothing else carries over.

// savedTournament is one finished tournament in a checkpoint.
type savedTournament struct {
	Played    int     `json:"played"`
	Voided    int     `json:"voided"`
	Saturated int     `json:"saturated,omitempty"`
	HostFault string  `json:"host_fault,omitempty"`
	Credits   []int64 `json:"credits"` // per bot
	Faults    []int   `json:"faults"`  // per bot
	Order     []int   `json:"order"`   // final standings: bot indices, richest first
}

// save encodes the finished tournaments ts (tournaments 0..len(ts)-1).
func save(ts []*tournament) ([]byte, error) {
	out := make([]savedTournament, len(ts))
	for i, t := range ts {
		s := savedTournament{Played: t.played, Voided: t.voided, Saturated: t.sat.n, HostFault: t.hostFault,
			Faults: t.faults, Order: t.order, Credits: make([]int64, len(t.bots))}
		for b, p := range t.bots {
			s.Credits[b] = p.credits
		}
		out[i] = s
	}
	return json.Marshal(out)
}

// restore fills ts, the first len(ts) tournaments of cfg's contest, from a checkpoint's
// state. A state of another length or another roster is refused: resumed from it, the
// contest would silently not be the one played straight.
func restore(cfg Config, ts []*tournament, state []byte) error {
	var saved []savedTournament
	if err := json.Unmarshal(state, &saved); err != nil {
		return fmt.Errorf("bankheist: checkpoint unreadable: %w", err)
	}
	if len(saved) != len(ts) {
		return fmt.Errorf("bankheist: checkpoint holds %d tournaments, its game count says %d", len(saved), len(ts))
	}
	n := len(cfg.Bots)
	for i, s := range saved {
		if len(s.Credits) != n || len(s.Faults) != n || len(s.Order) != n {
			return fmt.Errorf("bankheist: checkpoint's tournament %d has %d bots, the contest %d", i, len(s.Credits), n)
		}
		t := &tournament{index: i, played: s.Played, voided: s.Voided, hostFault: s.HostFault, faults: s.Faults, order: s.Order}
		t.sat.n = s.Saturated
		for b, c := range s.Credits {
			p := newPlayer(b)
			p.credits = c
			t.bots = append(t.bots, p)
		}
		for _, b := range s.Order {
			if b < 0 || b >= n {
				return fmt.Errorf("bankheist: checkpoint's tournament %d ranks bot %d of %d", i, b, n)
			}
		}
		ts[i] = t
	}
	return nil
}
