package whiteelephant

import (
	"encoding/json"
	"strconv"

	"github.com/kothd/kothd/engine"
)

// round plays one round (spec §2.3–2.5): fresh instances with fresh names, a shuffled turn
// order, n first turns each ending a chain of steals with an opening, then the scores. A
// fault of a bot disqualifies it and abandons the round; a host fault voids the game.
//
// A player's instance is made by its first call of the round, which is always its own first
// turn (a victim already holds a present, so has had its turn): the round's names travel
// with those calls instead of in a call to every process before the first turn. Each class
// is alone in its process, so what each one sees (its constructor, then its turns) is the
// same; only a constructor that raises is met when its turn comes rather than before the
// round's first turn, abandoning the round all the same.
func (g *game) round() {
	n := len(g.active)
	names := g.d.names(namePool(n), n)
	perm := g.d.order(n)
	turn := make([]player, n)
	for k, i := range perm {
		turn[k] = player{bot: g.active[i], name: names[i]}
	}
	g.log("[!!!] A new round begins with this turn order:")
	for _, p := range turn {
		g.log("%s (Controlled by %s)", p.name, g.bots[p.bot].Name)
	}
	g.log("---")

	r := &exchange{turn: turn, table: make([]present, 0, n), values: make([]float64, 0, n), known: make([]int, n)}
	for front := range turn {
		if !g.chain(r, front) {
			g.abandon()
			return
		}
	}
	g.log("[!!!] The round ends")
	holder := make(map[string]float64, n)
	for _, p := range r.table {
		holder[p.holder] = p.value
	}
	for _, p := range turn {
		g.score[p.bot] += holder[p.name]
		g.rounds[p.bot]++
	}
	g.played++
}

// abandon ends a round in which nobody scores (spec §4): the disqualified leave the list.
func (g *game) abandon() {
	if g.void != "" {
		return
	}
	g.voided++
	g.removeDisqualified()
}

// exchange is one round's state: the turn order and the present table, whose order is the
// order in which the current holders obtained their presents.
type exchange struct {
	turn   []player
	table  []present
	values []float64 // the round's openings in order: present i is worth values[i]
	known  []int     // by turn position: how many values the player's process was sent
	steals int       // accepted steals this round
}

func (r *exchange) find(name string) int {
	for i, p := range r.table {
		if p.holder == name {
			return i
		}
	}
	return -1
}

// chain plays the turn of the player at front and the steals it sets off, until someone
// opens (spec §2.4). It returns false when the round must be abandoned.
func (g *game) chain(r *exchange, front int) bool {
	pos := front
	var justStole *string
	waiting := make([]string, 0, len(r.turn)-front-1)
	for _, p := range r.turn[front+1:] {
		waiting = append(waiting, p.name)
	}
	fresh := r.turn[front].name // the first call of the chain makes the player's instance
	for {
		cur := r.turn[pos]
		args := turnArgs{Name: fresh, Players: waiting, Values: r.values[r.known[pos]:], Table: r.table, JustStole: justStole}
		fresh = ""
		call := engine.Call{Bot: cur.bot, Method: "turn", Args: args}
		reply := g.c.Ask(call)[0]
		if g.faulted([]engine.Call{call}, []engine.Reply{reply}) || g.void != "" {
			return false
		}
		r.known[pos] = len(r.values)
		victim := g.stealIndex(r, cur, reply, justStole, call)
		if victim < 0 {
			v := g.d.value()
			r.table = append(r.table, present{holder: cur.name, id: len(r.values), value: v})
			r.values = append(r.values, v)
			if g.trace != nil {
				g.log("%s opens a present worth %s.", cur.name, pyFloat(v))
			}
			return true
		}
		p := r.table[victim]
		r.table = append(r.table[:victim:victim], r.table[victim+1:]...)
		r.table = append(r.table, present{holder: cur.name, id: p.id, value: p.value, steals: p.steals + 1})
		r.steals++
		if g.trace != nil {
			g.log("%s steals from %s. (value: %s)", cur.name, p.holder, pyFloat(p.value))
		}
		thief := cur.name
		justStole = &thief
		pos = r.index(p.holder)
	}
}

func (r *exchange) index(name string) int {
	for i, p := range r.turn {
		if p.name == name {
			return i
		}
	}
	panic("whiteelephant: holder " + name + " is not a player") // an engine bug, not a bot's
}

// stealIndex returns the table index of the present the reply steals, or -1 for an opening.
// The harness has applied the driver's test in Python (spec §1.4) and answers the table
// index of the present to steal, null to open, or {"p": why} for an answer the policy
// resolved by opening. The engine checks the answer again, because a bot's code can reach
// into its harness, and applies the safety valve, which the harness does not know about.
func (g *game) stealIndex(r *exchange, cur player, reply engine.Reply, justStole *string, call engine.Call) int {
	res := reply.Result
	if len(res) > 0 && res[0] == '{' {
		var p struct {
			P string `json:"p"`
		}
		if err := json.Unmarshal(res, &p); err != nil || p.P == "" {
			g.policyFault(cur.bot, "unreadable answer from the harness: "+truncate(string(res)), call)
			return -1
		}
		g.policyFault(cur.bot, p.P, call)
		return -1
	}
	if string(res) == "null" {
		return -1
	}
	i, err := strconv.Atoi(string(res))
	if err != nil {
		g.policyFault(cur.bot, "unreadable answer from the harness: "+truncate(string(res)), call)
		return -1
	}
	if i < 0 || i >= len(r.table) {
		return -1
	}
	if h := r.table[i].holder; h == cur.name || (justStole != nil && h == *justStole) {
		return -1
	}
	if r.steals >= valveFactor*len(r.turn) && r.table[i].steals >= maxSteals {
		return -1 // the safety valve (engine addition, spec §2.4)
	}
	return i
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// policyFault counts a case the policy resolves by opening a present (spec §4): the bot
// plays on, but the fault is counted for it.
func (g *game) policyFault(bot int, detail string, call engine.Call) {
	g.faults[bot]++
	if g.onFault != nil {
		g.onFault(bot, &engine.Fault{Outcome: engine.BadOutput, Detail: detail}, call)
	}
}

// pyFloat renders a float as Python's repr does, for the log texts of spec §2.8.
func pyFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'n' || c == 'I' {
			return s
		}
	}
	return s + ".0"
}
