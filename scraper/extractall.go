package scraper

import (
	"fmt"
	"sort"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/internal/names"
)

// ExtractAll extracts every answer of a question (Extract) and, where the bot's name is the
// heading's (header_language or multi-file challenges), rejects a later answer that takes
// a name an earlier accepted answer already has. Earlier means posted earlier (creation
// date, then answer id), whatever the order of answers; names are compared as people see
// them (package names: case, spacing and punctuation aside, "Robin Hood" = "robinhood",
// and look-alikes such as "GoTo20Bоt" with a Cyrillic о are the same name). The result is
// in the order of answers.
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
	var claims names.Claims
	for _, i := range order {
		s := &subs[i]
		if s.Reject != "" {
			continue
		}
		if reason := claims.Clash(s.Title); reason != "" {
			s.Reject = reason
			s.Files, s.Main = nil, ""
			s.Hash = submissionHash(s)
			continue
		}
		claims.Claim(s.Title, fmt.Sprintf("answer %d by %s", s.AnswerID, s.Author))
	}
	return subs
}

// RulesFromConfig builds a challenge's extraction rules from the config: its `extract:`
// settings, the language table (aliases and file names), and the protocol's needs
// (dirfiles bots must have `run`, and may not ship the files the engine writes).
func RulesFromConfig(cfg *config.Config, ch *config.Challenge) Rules {
	r := Rules{
		Mode: ch.Extract.Mode, ClassPattern: ch.Extract.ClassPattern, HeaderLanguage: ch.Extract.HeaderLanguage,
		Language: ch.Extract.Language, MaxBytes: ch.Extract.MaxBytes,
		Languages: cfg.Aliases(), MainFile: map[string]string{},
	}
	for key, l := range cfg.Languages {
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
