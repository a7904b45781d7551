package mafia_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/mafia"
)

// Go stand-ins for the shell and Python bots of the real-process tests (testdata/bots and
// the snapshot's answers), written line by line after their scripts. They play a game in
// microseconds where the real bots take minutes, which is what choosing a master seed for
// a short real game needs: TestSearchSeeds tries seeds in order and prints the first that
// end quickly. A stand-in that drifts from its script only makes the search suggest a seed
// the real test then rejects; nothing else depends on them.

// standin is one bot's program: it reads from_server and its players file and returns
// what it writes to to_server (write false: it leaves the file alone).
type standin interface {
	run(me string, players []string, from string) (out string, write bool)
}

// standins plays listed bots as Go stand-ins, with the dirfiles protocol's file semantics.
type standins struct {
	bots    []standin
	names   []string // game names (the directory names)
	players [][]string
	from    []string
	to      []string
	runs    int
}

func (s *standins) Setup(game, bot int, players []string) error {
	s.players[bot] = players
	s.from[bot], s.to[bot] = "", ""
	return nil
}

func (s *standins) Deliver(bot int, text string) error { s.from[bot] = text; return nil }

func (s *standins) Run(_ context.Context, _ engine.At, bot int, collect bool) (string, *engine.Fault) {
	s.runs++
	if out, write := s.bots[bot].run(s.names[bot], s.players[bot], s.from[bot]); write {
		s.to[bot] = out
	}
	if !collect {
		return "", nil
	}
	out := s.to[bot]
	s.to[bot] = ""
	return out, nil
}

func (s *standins) LastExit(int) int { return 0 }

func lines(text string) []string {
	ls := strings.Split(text, "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func firstLine(text string) string {
	l, _, _ := strings.Cut(text, "\n")
	return l
}

// firstOther is the first player not me, not dead and not excluded, or "".
func firstOther(me string, players, dead []string, excl ...string) string {
	for _, p := range players {
		if p != me && !slices.Contains(dead, p) && !slices.Contains(excl, p) {
			return p
		}
	}
	return ""
}

// deadName reads a death announcement.
func deadName(m string) (string, bool) {
	if rest, ok := strings.CutPrefix(m, "Last night, "); ok {
		if i := strings.Index(rest, " was killed."); i >= 0 {
			return rest[:i], true
		}
	}
	if rest, ok := strings.CutPrefix(m, "The town has killed "); ok && strings.HasSuffix(rest, "!") {
		return strings.TrimSuffix(rest, "!"), true
	}
	return "", false
}

// copTrust is testdata/bots/CopTrust/run (and the snapshot's CopTrust).
type copTrust struct {
	role                                  string
	dead, suspects, checked, allies, news []string
	voted                                 string
}

func (b *copTrust) run(me string, players []string, from string) (string, bool) {
	msgs := lines(from)
	first := firstLine(from)
	if strings.HasPrefix(first, "Rise and shine!") {
		*b = copTrust{role: "villager"}
	}
	alliesNext := false
	for _, m := range msgs {
		if alliesNext {
			b.allies = append(b.allies, m)
			continue
		}
		switch {
		case m == "You are a member of the mafia.":
			b.role = "mafia"
		case m == "Your allies are:":
			alliesNext = true
		case m == "You are the cop.":
			b.role = "cop"
		case m == "You are the doctor.":
			b.role = "doctor"
		case strings.HasPrefix(m, "Investigations showed that ") && strings.HasSuffix(m, " is mafia-aligned."):
			n := strings.TrimSuffix(strings.TrimPrefix(m, "Investigations showed that "), " is mafia-aligned.")
			b.suspects = append(b.suspects, n)
			b.news = append(b.news, n)
		case strings.Contains(m, ` says "I investigated this player and found that they were mafia-aligned: `):
			n := m[strings.LastIndex(m, ": ")+2:]
			b.suspects = append(b.suspects, strings.TrimSuffix(n, `"`))
		default:
			if n, ok := deadName(m); ok {
				b.dead = append(b.dead, n)
			}
		}
	}
	switch first {
	case "It is night. Vote for a victim.":
		return line(firstOther(me, players, b.dead, b.allies...)), true
	case "It is night. Who would you like to investigate?":
		t := firstOther(me, players, b.dead, b.checked...)
		b.checked = append(b.checked, t)
		return line(t), true
	case "It is night. Who would you like to save?":
		return line(me), true
	}
	if len(b.news) > 0 && b.news[0] != "" {
		n := b.news[0]
		b.news = nil
		return "say 14 " + n + "\n", true
	}
	target := ""
	if b.role == "mafia" {
		target = firstOther(me, players, b.dead, b.allies...)
	} else {
		for _, s := range b.suspects {
			if !slices.Contains(b.dead, s) {
				target = s
				break
			}
		}
		if target == "" {
			target = firstOther(me, players, b.dead)
		}
	}
	if target != "" && target != b.voted {
		b.voted = target
		return "vote " + target + "\n", true
	}
	return "", true
}

// line is what `echo "$x"` writes.
func line(s string) string { return s + "\n" }

// lynchy is testdata/bots/Lynchy/run.
type lynchy struct {
	dead  []string
	voted bool
}

func (b *lynchy) run(me string, players []string, from string) (string, bool) {
	msgs := lines(from)
	first := firstLine(from)
	if strings.HasPrefix(first, "Rise and shine!") {
		*b = lynchy{}
	}
	for _, m := range msgs {
		if n, ok := deadName(m); ok {
			b.dead = append(b.dead, n)
		} else if strings.HasPrefix(m, "Dawn of day ") {
			b.voted = false
		}
	}
	target := firstOther(me, players, b.dead)
	switch {
	case strings.HasSuffix(first, "save?"):
		return line(me), true
	case strings.HasSuffix(first, "?"), strings.HasSuffix(first, "victim."):
		return line(target), true
	case b.voted:
		return "", true
	}
	b.voted = true
	return "vote " + target + "\n", true
}

// talker is testdata/bots/Talker/run.
type talker struct{}

func (talker) run(me string, _ []string, from string) (string, bool) {
	first := firstLine(from)
	if strings.HasSuffix(first, "?") || strings.HasSuffix(first, "victim.") {
		return line(me), true
	}
	return "say 4\n", true
}

// mute is testdata/bots/Mute/run: it never writes to_server.
type mute struct{}

func (mute) run(string, []string, string) (string, bool) { return "", false }

// parrot is the snapshot's Parrot: cat from_server > to_server.
type parrot struct{}

func (parrot) run(_ string, _ []string, from string) (string, bool) { return from, true }

// blabbermouth is the snapshot's Blabbermouth (C): its count file lasts the tournament.
type blabbermouth struct{ count int }

func (b *blabbermouth) run(me string, players []string, from string) (string, bool) {
	ps := strings.Fields(strings.Join(players, "\n"))
	if from == "" {
		return "", true
	}
	l := firstLine(from)
	if strings.HasSuffix(l, "?") || strings.HasSuffix(l, "victim.") {
		for _, p := range ps {
			if p != me {
				return line(p), true
			}
		}
		return "", true
	}
	b.count++
	if b.count%10 == 1 {
		return "say 2\n", true
	}
	who := ps[b.count%len(ps)]
	if who == me {
		who = ps[(b.count+1)%len(ps)]
	}
	return "say 10 " + who + "\n", true
}

// sheriff is the snapshot's Sheriff (Python 3); its sheriff.json is this struct.
type sheriff struct {
	role                                       string
	allies, dead, mafia, town, checked, claims []string
	news                                       []string
	enemy, voted                               string // "" is Python's None
}

func (b *sheriff) run(me string, players []string, from string) (string, bool) {
	ls := lines(from)
	if len(ls) > 0 && strings.HasPrefix(ls[0], "Rise and shine!") || b.role == "" {
		*b = sheriff{role: "villager"}
	}
	allies := false
	for _, l := range ls {
		switch {
		case allies:
			b.allies = append(b.allies, l)
		case l == "You are a member of the mafia.":
			b.role = "mafia"
		case l == "Your allies are:":
			allies = true
		case l == "You are the cop.":
			b.role = "cop"
		case l == "You are the doctor.":
			b.role = "doctor"
		case strings.HasPrefix(l, "Dawn of day "):
			b.voted = ""
		case strings.HasPrefix(l, "Last night, "):
			n, _, _ := strings.Cut(strings.TrimPrefix(l, "Last night, "), " was killed.")
			b.dead = append(b.dead, n)
		case strings.HasPrefix(l, "The town has killed "):
			b.dead = append(b.dead, l[len("The town has killed "):len(l)-1])
		case strings.HasPrefix(l, "Investigations showed that "):
			rest := strings.TrimPrefix(l, "Investigations showed that ")
			i := strings.LastIndex(rest, " is ")
			name, align := rest[:max(i, 0)], rest[i+len(" is "):]
			if i < 0 {
				name, align = "", rest
			}
			if strings.HasPrefix(align, "mafia") {
				b.mafia = append(b.mafia, name)
			} else {
				b.town = append(b.town, name)
			}
			b.news = append(b.news, name)
		case strings.HasSuffix(l, " has voted to lynch "+me+"."):
			b.enemy, _, _ = strings.Cut(l, " ")
		case strings.Contains(l, "found that they were mafia-aligned: ") && !strings.HasPrefix(l, me+" "):
			b.mafia = append(b.mafia, strings.TrimRight(l[strings.LastIndex(l, ": ")+2:], `"`))
		case strings.HasSuffix(l, ` says "I am the cop"`):
			c, _, _ := strings.Cut(l, " ")
			b.claims = append(b.claims, c)
		}
	}
	living := func(excl ...string) []string {
		var out []string
		for _, p := range players {
			if p != me && !slices.Contains(b.dead, p) && !slices.Contains(excl, p) {
				out = append(out, p)
			}
		}
		return out
	}
	first := firstLine(from)
	answer := func() string {
		switch first {
		case "It is night. Vote for a victim.":
			targets := living(b.allies...)
			for _, p := range targets {
				if slices.Contains(b.claims, p) {
					return p
				}
			}
			if len(targets) > 0 {
				return targets[0]
			}
			return me
		case "It is night. Who would you like to investigate?":
			targets := living(slices.Concat(b.checked, b.mafia, b.town)...)
			if len(targets) == 0 {
				return me
			}
			b.checked = append(b.checked, targets[0])
			return targets[0]
		case "It is night. Who would you like to save?":
			return me
		}
		if len(b.news) > 0 {
			name := b.news[0]
			b.news = b.news[1:]
			id := 15
			if slices.Contains(b.mafia, name) {
				id = 14
			}
			return fmt.Sprintf("say %d %s", id, name)
		}
		alive := living()
		var suspects []string
		if b.role == "mafia" {
			for _, p := range alive {
				if !slices.Contains(b.allies, p) {
					suspects = append(suspects, p)
				}
			}
		} else {
			for _, p := range b.mafia {
				if slices.Contains(alive, p) {
					suspects = append(suspects, p)
				}
			}
		}
		if b.enemy != "" && slices.Contains(alive, b.enemy) && !slices.Contains(b.allies, b.enemy) {
			suspects = append(suspects, b.enemy)
		}
		if len(suspects) > 0 && suspects[0] != b.voted {
			b.voted = suspects[0]
			return "vote " + suspects[0]
		}
		return ""
	}()
	if answer == "" {
		return "", true
	}
	return answer + "\n", true
}

// lineups are the tests' lineups, in entrant order, with their stand-ins.
var lineups = map[string]func() ([]string, []standin){
	// engine/mafia TestRealGame.
	"real": func() ([]string, []standin) {
		return realNames, []standin{&copTrust{}, &copTrust{}, &lynchy{}, &lynchy{}, talker{}, mute{}}
	},
	// TestReplayMafia (cycle_test.go): the snapshot's answers that pass validation, Randy excluded.
	"replay": func() ([]string, []standin) {
		return []string{"CopTrust", "Sheriff", "Blabbermouth", "Parrot"}, []standin{&copTrust{}, &sheriff{}, &blabbermouth{}, parrot{}}
	},
}

// TestSearchSeeds prints, for each lineup, the first master seeds whose first game the
// stand-ins finish quickly (scored, not abandoned). Run it by hand:
//
//	KOTHD_MAFIA_SEEDS=1 go test ./engine/mafia -run TestSearchSeeds -v
func TestSearchSeeds(t *testing.T) {
	if os.Getenv("KOTHD_MAFIA_SEEDS") == "" {
		t.Skip("a tool, not a test: set KOTHD_MAFIA_SEEDS=1 to search seeds")
	}
	for _, name := range []string{"real", "replay"} {
		found := 0
		for seed := uint64(0); seed < 200 && found < 8; seed++ {
			names, bots := lineups[name]()
			lineup := mafia.NewLineup(names)
			s := &standins{bots: bots, names: lineup.Names[:len(names)], players: make([][]string, len(names)),
				from: make([]string, len(names)), to: make([]string, len(names))}
			r, err := lineup.Play(context.Background(), s, engine.GameSeed(seed, 0), mafia.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome == mafia.Abandoned || r.Days > 3 {
				continue
			}
			found++
			t.Logf("%s: seed %d: %s after %d days, %d launches", name, seed, r.Outcome, r.Days, s.runs)
		}
	}
}
