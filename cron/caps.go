package cron

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/internal/mdtext"
	"github.com/kothd/kothd/scraper"
)

// Caps on what answers bring (issue 10). An answer's code runs before kothd knows what it
// holds: a loop of type() calls made 150 competing classes (462 processes, 1 GB), and a
// class named with 140,000 characters once stopped a challenge for good. What exceeds a
// cap is not entered, with the cap named, and nothing of it is started.
const (
	defaultNameMax          = 64
	defaultClassesPerAnswer = 10
	defaultBotsPerChallenge = 200
	// A Python class's name is what Python accepts in a class statement: letters, digits
	// (not first) and underscores, in any script.
	defaultClassPattern = `^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$`
	// Other bots are named by their answer's heading: any visible text on one line.
	defaultNamePattern = `^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$`
)

// caps are a challenge's caps with the defaults filled in.
type caps struct {
	nameMax          int
	namePattern      *regexp.Regexp
	classesPerAnswer int
	botsPerChallenge int
	botsPerAuthor    int
}

func capsOf(ch *config.Challenge) (caps, error) {
	l := ch.Limits
	c := caps{nameMax: l.NameMax, classesPerAnswer: l.ClassesPerAnswer, botsPerChallenge: l.BotsPerChallenge, botsPerAuthor: l.BotsPerAuthor}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.nameMax, defaultNameMax)
	def(&c.classesPerAnswer, defaultClassesPerAnswer)
	def(&c.botsPerChallenge, defaultBotsPerChallenge)
	// One account may not fill the run: sixteen answers of ten classes, posted early, took
	// 160 of its 200 places (oldest answers first). A quarter (50) leaves room for three
	// others at least, and at least ten (a whole answer's classes) with a small run cap; no
	// real challenge has had an author with near that many bots.
	def(&c.botsPerAuthor, max(defaultClassesPerAnswer, c.botsPerChallenge/4))
	pat := l.NamePattern
	switch {
	case pat != "":
	case ch.Protocol == "pyclass":
		pat = defaultClassPattern
	default:
		pat = defaultNamePattern
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return caps{}, fmt.Errorf("limits.name_pattern: %w", err)
	}
	c.namePattern = re
	return c, nil
}

// admit says why the k-th bot (from 0) of one answer may not enter on its own account: a
// name out of bounds, or one class too many. Nil: it may (duplicates and exclusions are
// settled later, against the other answers).
func (c caps) admit(k int, name string) error {
	if n := utf8.RuneCountInString(name); n > c.nameMax {
		return fmt.Errorf("name of %d characters: the cap is %d (limits.name_max)", n, c.nameMax)
	}
	if !utf8.ValidString(name) || !c.namePattern.MatchString(name) {
		return fmt.Errorf("name %q has characters a bot's name may not have (limits.name_pattern: %s)", name, c.namePattern)
	}
	if k >= c.classesPerAnswer {
		return fmt.Errorf("competing class %d of the answer: the cap is %d per answer (limits.classes_per_answer)", k+1, c.classesPerAnswer)
	}
	return nil
}

// roomFor says why one more answer's bot may not enter a run that already has entered of
// them (built-in bots do not count).
func (c caps) roomFor(entered int) error {
	if entered >= c.botsPerChallenge {
		return fmt.Errorf("the challenge is full: the cap is %d bots from answers (limits.bots_per_challenge)", c.botsPerChallenge)
	}
	return nil
}

// authorRoom says why one more bot of an account that already has entered of them may
// not enter.
func (c caps) authorRoom(entered int) error {
	if entered >= c.botsPerAuthor {
		return fmt.Errorf("its author's answers already have %d bots in the run: the cap is %d per author (limits.bots_per_author)", entered, c.botsPerAuthor)
	}
	return nil
}

// authorKey names a submission's account for bots_per_author: its user id, or its display
// name where the API gives none (a deleted account).
func authorKey(s scraper.Submission) string {
	if s.UserID != 0 {
		return "user " + strconv.FormatInt(s.UserID, 10)
	}
	return "name " + s.Author
}

// overCap is the one record of an answer's classes beyond classes_per_answer, however
// many it makes: a loop of type() calls once made 40,000 classes and put 39,991 rows on
// the board (7.5 MB of markdown, 9.1 MB of JSON) and as many in the store. The record
// names the first few of them and counts the rest. ok is false when the answer is within
// the cap.
func (c caps) overCap(entries []engine.Bot) (name, reason string, ok bool) {
	over := entries[min(c.classesPerAnswer, len(entries)):]
	if len(over) == 0 {
		return "", "", false
	}
	const listed = 3
	var shown []string
	for _, e := range over[:min(listed, len(over))] {
		shown = append(shown, mdtext.Cut(e.Name, 32))
	}
	name = strings.Join(shown, ", ")
	if more := len(over) - len(shown); more > 0 {
		name += fmt.Sprintf(" and %s more", thousands(more))
	}
	reason = fmt.Sprintf("%s competing classes; only the first %d may compete (limits.classes_per_answer)", thousands(len(entries)), c.classesPerAnswer)
	return name, reason, true
}

// thousands writes n with commas between groups of three digits: 40,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Bounds on the words an answer puts in a not-entered record (the store and the board):
// a reason quotes the bot's own output (a crash's message, a compiler's errors).
const (
	reasonMax = 1000
	titleMax  = 2 * defaultNameMax
	authorMax = 100
)

// shownName is a bot's name as records and boards may carry it: a name refused for its
// length is cut (at a character boundary), so the refusal itself stays small.
func shownName(name string) string {
	const max = 2 * defaultNameMax
	if utf8.RuneCountInString(name) <= max {
		return name
	}
	r := []rune(name)
	return string(r[:max]) + "…"
}
