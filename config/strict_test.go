package config

import (
	"strings"
	"testing"
	"time"
)

// Every mistake a host can make in the file is an error that says where (file:line) and,
// for a misspelt key or name, what was probably meant.
func TestLoadStrict(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"misspelt challenge key", "challenges:\n  - name: forty\n    question_id: 1\n    gmes: 5\n",
			`:4: unknown key "gmes" in challenge forty (did you mean "games"?)`},
		{"misspelt top-level key", "schedul: \"0 4 * * *\"\n", `:1: unknown key "schedul" (did you mean "schedule"?)`},
		{"nested key", "challenges:\n  - name: forty\n    question_id: 1\n    limits: {memory_mbb: 5}\n",
			`:4: unknown key "memory_mbb" in limits of challenge forty (did you mean "memory_mb"?)`},
		{"github key", "github:\n  baseurl: x\n", `:2: unknown key "baseurl" in github (did you mean "base_url"?)`},
		{"language key", "languages:\n  c:\n    runn: [./bot]\n", `:3: unknown key "runn" in c (did you mean "run"?)`},
		{"no suggestion for nonsense", "zzzzzzzzzz: 1\n", `:1: unknown key "zzzzzzzzzz"`},
		{"protocol", "challenges:\n  - {name: a, question_id: 1,\n     protocol: pyclas}\n",
			`:3: challenge a: unknown protocol "pyclas" (did you mean "pyclass"?)`},
		{"schedule", "challenges:\n  - name: a\n    question_id: 1\n    schedule: \"0 25 * * *\"\n", `:4: challenge a: schedule: "0 25 * * *" is not a cron expression`},
		{"global schedule", "schedule: every day\n", `:1: schedule: "every day" is not a cron expression`},
		{"timezone", "timezone: Europe/Pariss\n", `:1: timezone "Europe/Pariss"`},
		{"extract mode", "challenges:\n  - name: a\n    question_id: 1\n    extract: {mode: first-blok}\n",
			`:4: challenge a: unknown extract mode "first-blok" (did you mean "first-block"?)`},
		{"class pattern", "challenges:\n  - name: a\n    question_id: 1\n    extract: {mode: class-blocks, class_pattern: '(('}\n", `:4: challenge a: class_pattern: error parsing regexp`},
		{"extract language", "languages: {python3: {run: [python3]}}\nchallenges:\n  - name: a\n    question_id: 1\n    extract: {language: pyton3}\n",
			`:5: challenge a: extract language "pyton3" is not in languages (did you mean "python3"?)`},
		{"negative games", "challenges:\n  - name: a\n    question_id: 1\n    games: -5\n", `:4: challenge a: games must not be negative`},
		{"concurrent runs", "max_concurrent_runs: -1\n", `:1: max_concurrent_runs must be at least 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.body)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, p+tc.want)
			}
		})
	}
}

// All mistakes come at once, so a host fixes the file in one go.
func TestLoadReportsEveryMistake(t *testing.T) {
	p := write(t, "gmes: 1\nchallenges:\n  - {name: a, question_id: 1, engnie: a}\n  - {name: b, question_id: 2, protocol: x}\n")
	_, err := Load(p)
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{p + `:1: unknown key "gmes"`, p + `:3: unknown key "engnie" in challenge a (did you mean "engine"?)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nmissing %q", err, want)
		}
	}
}

func TestSchedulesAndZones(t *testing.T) {
	p := write(t, "timezone: Europe/Paris\nschedule: \"CRON_TZ=UTC 30 2 * * 1\"\nchallenges:\n  - {name: a, question_id: 1, schedule: \"*/10 * * * * *\"}\n  - {name: b, question_id: 2, schedule: \"@daily\"}\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := c.Location()
	if err != nil || loc.String() != "Europe/Paris" {
		t.Fatalf("location %v %v", loc, err)
	}
	if c.ScheduleOf(&c.Challenges[0]) != "*/10 * * * * *" || c.MaxConcurrentRuns != 1 {
		t.Errorf("schedule of a: %q, max runs %d", c.ScheduleOf(&c.Challenges[0]), c.MaxConcurrentRuns)
	}
	s, err := ParseSchedule("0 4 * * *", loc)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := ParseSchedule("@every 1h", loc) // a descriptor parses too
	if from == nil {
		t.Fatal("@every")
	}
	next := s.Next(mustTime(t, "2026-03-01T10:00:00Z"))
	if got := next.UTC().Format("2006-01-02T15:04"); got != "2026-03-02T03:00" { // 04:00 in Paris (UTC+1)
		t.Errorf("next 04:00 Paris = %s UTC", got)
	}
}

// Engines are checked against what the build registers, with the nearest name; the
// protocol follows from the engine.
func TestValidateEngines(t *testing.T) {
	known := Known{Engines: map[string]Engine{"forty": {Protocol: "pyclass"}, "mafia": {Protocol: "dirfiles"}, "other": {}}}
	p := write(t, "challenges:\n  - name: forty\n    question_id: 1\n    engine: fourty\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate(known)
	if want := p + `:4: challenge forty: unknown engine "fourty" (did you mean "forty"?); this build has: forty, mafia, other`; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	p = write(t, "challenges:\n  - {name: forty, question_id: 1}\n  - name: mafia\n    question_id: 2\n    protocol: argv\n  - {name: x, engine: other, question_id: 3, protocol: argv}\n")
	if c, err = Load(p); err != nil {
		t.Fatal(err)
	}
	err = c.Validate(known)
	if want := p + `:5: challenge mafia: engine mafia speaks protocol "dirfiles", not "argv"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if c.Challenges[0].Protocol != "pyclass" {
		t.Errorf("protocol of forty not taken from its engine: %q", c.Challenges[0].Protocol)
	}
}

func TestUnknownChallengeListsNames(t *testing.T) {
	c, err := Load(write(t, "challenges:\n  - {name: forty, question_id: 1}\n  - {name: ruins, question_id: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Challenge("fourty")
	if err == nil || !strings.Contains(err.Error(), `the challenges are: forty, ruins (did you mean "forty"?)`) {
		t.Errorf("err = %v", err)
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"gmes", "games", 1}, {"kitten", "sitting", 3}, {"fourty", "forty", 1}, {"abc", "", 3}} {
		if d := levenshtein(tc.a, tc.b); d != tc.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
	if got := nearest("xyzzy", []string{"games", "engine"}); got != "" {
		t.Errorf("nearest of nonsense = %q", got)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type testOptions struct {
	WinningScore float64 `yaml:"winning_score"`
	Lead         int     `yaml:"lead"`
}

// An engine's options block is checked at load: unknown keys with file:line and the nearest
// key, wrong types, options for an engine that has none.
func TestValidateOptions(t *testing.T) {
	known := Known{Engines: map[string]Engine{
		"we":   {Protocol: "pyclass", Options: func() any { return &testOptions{} }},
		"none": {Protocol: "argv"},
	}}
	for _, tc := range []struct{ body, want string }{
		{"challenges:\n  - name: a\n    engine: we\n    question_id: 1\n    options:\n      winning_scor: 20\n",
			`:6: unknown key "winning_scor" in options of challenge a (did you mean "winning_score"?)`},
		{"challenges:\n  - name: a\n    engine: we\n    question_id: 1\n    options: {lead: many}\n", `:5: lead in options of challenge a must be a whole number, not "many"`},
		{"challenges:\n  - name: a\n    engine: none\n    question_id: 1\n    options: {x: 1}\n", `:5: challenge a: the none engine has no options`},
	} {
		p := write(t, tc.body)
		c, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(known); err == nil || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("err = %v\nwant %q", err, p+tc.want)
		}
	}
	p := write(t, "challenges:\n  - {name: a, engine: we, question_id: 1, options: {winning_score: 20}}\n  - {name: b, engine: none, question_id: 2, options: {}}\n")
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(known); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}
