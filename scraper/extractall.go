package scraper

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"kothd/config"
)

// ExtractAll extracts every answer of a question (Extract) and, where the bot's name is the
// heading's (header_language or multi-file challenges), rejects a later answer that takes
// a name an earlier accepted answer already has. Earlier means posted earlier (creation
// date, then answer id), whatever the order of answers; names are compared ignoring case
// and everything but letters and digits ("Robin Hood" = "robinhood"), the way engines turn
// names into player names. The result is in the order of answers.
func ExtractAll(answers []Answer, r Rules) []Submission {
	subs := make([]Submission, len(answers))
	for i, a := range answers {
		subs[i] = Extract(a, r)
	}
	if !r.HeaderLanguage && r.Mode != "multi-file" {
		return subs // bots are named by class; the engines settle clashes (specs §1.3)
	}
	order := make([]int, len(subs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := &subs[order[x]], &subs[order[y]]
		if a.Created != b.Created {
			return a.Created < b.Created
		}
		return a.AnswerID < b.AnswerID
	})
	owner := map[string]*Submission{}
	for _, i := range order {
		s := &subs[i]
		if s.Reject != "" {
			continue
		}
		key := nameKey(s.Title)
		if key == "" {
			continue
		}
		if first, taken := owner[key]; taken {
			s.Reject = fmt.Sprintf("duplicate bot name %q: answer %d by %s entered %q first; pick another name",
				s.Title, first.AnswerID, first.Author, first.Title)
			s.Files, s.Main = nil, ""
			s.Hash = submissionHash(s)
			continue
		}
		owner[key] = s
	}
	return subs
}

func nameKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// RulesFromConfig builds a challenge's extraction rules from the config: its `extract:`
// settings, the language table (aliases and file names), and the protocol's needs
// (dirfiles bots must have `run`, and may not ship the files the engine writes).
func RulesFromConfig(cfg *config.Config, ch *config.Challenge) Rules {
	r := Rules{
		Mode: ch.Extract.Mode, ClassPattern: ch.Extract.ClassPattern, HeaderLanguage: ch.Extract.HeaderLanguage,
		Language: ch.Extract.Language, MaxBytes: ch.Extract.MaxBytes,
		Languages: map[string][]string{}, MainFile: map[string]string{},
	}
	for key, l := range cfg.Languages {
		r.Languages[key] = l.Aliases
		if l.File != "" {
			r.MainFile[key] = l.File
		}
	}
	if ch.Protocol == "dirfiles" {
		r.Entry = "run"
		r.Reserved = []string{"from_server", "to_server", "players"}
	}
	return r
}
