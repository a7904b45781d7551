package mafia

import (
	"strconv"
	"strings"
)

// The texts of the original controller's message table (spec §2.3, §2.4), word for word.

// sayTexts are the 17 things a player can say; ids 5–16 take a subject that follows the
// text directly (the text ends with a space).
var sayTexts = [...]string{
	"No",
	"Yes",
	"I am the cop",
	"I am the doctor",
	"I am a normal villager",
	"I trust this player: ",
	"I think this player is suspicious: ",
	"I think this player is the cop: ",
	"I think this player is the doctor: ",
	"I think this player is a normal villager: ",
	"I think this player is mafia: ",
	"Do you think this player is mafia? ",
	"I tried to save this player: ",
	"I successfully saved this player: ",
	"I investigated this player and found that they were mafia-aligned: ",
	"I investigated this player and found that they were village-aligned: ",
	"Will you please use your power on this player tonight? ",
}

// firstSubjectID is the first say id that requires a subject.
const firstSubjectID = 5

const (
	setupText     = "Rise and shine! Today is day 0.\nNo voting will occur today.\nBe warned: Tonight the mafia will strike.\n"
	mafiaText     = "You are a member of the mafia.\nYour allies are:\n"
	copText       = "You are the cop.\n"
	doctorText    = "You are the doctor.\n"
	noLynchText   = "The town opted to lynch no one today."
	mafiaPrompt   = "It is night. Vote for a victim."
	copPrompt     = "It is night. Who would you like to investigate?"
	doctorPrompt  = "It is night. Who would you like to save?"
	noOne         = "no one"
	randyNightEnd = "victim."
)

// Role is a player's secret role.
type Role int8

// The roles; the zero value is a villager.
const (
	Villager Role = iota
	Mafioso
	Cop
	Doctor
)

// Mafia reports whether the role is mafia-aligned.
func (r Role) Mafia() bool { return r == Mafioso }

// Article is the role as the announcements name it ("They were a villager.").
func (r Role) Article() string {
	switch r {
	case Mafioso:
		return "a mafioso"
	case Cop:
		return "the cop"
	case Doctor:
		return "the doctor"
	}
	return "a villager"
}

func (r Role) String() string {
	return [...]string{"villager", "mafioso", "cop", "doctor"}[r]
}

// normalise deletes every byte that is not an ASCII letter, digit or space (spec §1.4).
func normalise(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	return string(b)
}

// command is a parsed day command: a vote (target noTarget for "no one") or a speech.
type command struct {
	kind   commandKind
	target int    // vote: the player voted for, or noTarget
	text   string // speech: what is broadcast, e.g. `Echo says "Yes"`
}

type commandKind int8

const (
	ignored   commandKind = iota
	voteFor               // a vote for a living player, or for no one
	voteClear             // a vote for a dead player: silently none
	say
)

const noTarget = -1

// parseDay interprets one day run's output for speaker (spec §2.4). lookup finds a player of
// this game by exact name; alive says whether a player lives.
func (g *game) parseDay(speaker int, out string) command {
	w := strings.Fields(normalise(out))
	if len(w) < 2 {
		return command{}
	}
	switch w[0] {
	case "vote":
		if g.day == 0 {
			return command{}
		}
		if w[1] == "no" {
			if len(w) >= 3 && w[2] == "one" {
				return command{kind: voteFor, target: noTarget}
			}
			return command{}
		}
		p, ok := g.byName[w[1]]
		switch {
		case !ok:
			return command{}
		case !g.alive[p]:
			return command{kind: voteClear}
		}
		return command{kind: voteFor, target: p}
	case "say":
		id, ok := sayID(w[1])
		if !ok {
			return command{}
		}
		var subject, recipient string
		rest := w[2:]
		if id >= firstSubjectID {
			if len(rest) == 0 {
				return command{}
			}
			subject, rest = rest[0], rest[1:]
			if _, ok := g.byName[subject]; !ok {
				return command{}
			}
		}
		if len(rest) == 1 { // exactly one more word: the recipient; more: extras ignored
			recipient = rest[0]
			if _, ok := g.byName[recipient]; !ok {
				return command{}
			}
		}
		msg := sayTexts[id] + subject
		if recipient != "" {
			msg = recipient + ", " + msg
		}
		return command{kind: say, text: g.names[speaker] + ` says "` + msg + `"`}
	}
	return command{}
}

// sayID reads a message id: decimal digits only (leading zeros allowed), 0–16.
func sayID(w string) (int, bool) {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, false
		}
	}
	w = strings.TrimLeft(w, "0")
	if w == "" {
		return 0, true
	}
	if len(w) > 2 {
		return 0, false
	}
	id, err := strconv.Atoi(w)
	if err != nil || id >= len(sayTexts) {
		return 0, false
	}
	return id, true
}

// parseNight reads a night answer: the whole normalised text must be a player's name.
func (g *game) parseNight(out string) (int, bool) {
	p, ok := g.byName[normalise(out)]
	return p, ok
}
