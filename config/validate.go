package config

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
)

// challengeName is what a challenge's name may be: it names files (output_dir/<name>.md,
// data_dir/bots/<name>/), so no separators, no dots to climb with.
var challengeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// Protocols are the ways bots talk to the runner.
var Protocols = []string{"pyclass", "argv", "dirfiles", "stdio"}

// ExtractModes are the ways an answer becomes bot files (see Extract.Mode).
var ExtractModes = []string{"class-blocks", "first-block", "multi-file"}

// Known is what this build offers, which the config is checked against. The config
// package knows no engine; the CLI passes the registered ones.
type Known struct {
	Engines map[string]Engine
}

// Engine is what the config needs to know of one engine.
type Engine struct {
	Protocol string     // the protocol its bots speak ("" if any)
	Options  func() any // a pointer to a zero value of its `options:` type; nil: no options
	// Batched says the engine plays in batches it can stop after (engine.Game.Batched):
	// only such an engine can take `adaptive:`.
	Batched bool
	Games   int // its default number of games per run (0: its rules decide)
}

// Validate checks the challenges against this build's engines: an unknown engine is an
// error (with the nearest name), a protocol that is not the engine's is an error, an empty
// protocol becomes the engine's, and the `options:` block is checked against the engine's
// options type (unknown keys with the nearest one, wrong types), all with file:line.
func (c *Config) Validate(k Known) error {
	names := make([]string, 0, len(k.Engines))
	for name := range k.Engines {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		e, ok := k.Engines[ch.Engine]
		if !ok {
			msg := fmt.Sprintf("challenge %s: unknown engine %q", ch.Name, ch.Engine)
			if s := nearest(ch.Engine, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			errs = append(errs, c.errAt(ch.line("engine"), "%s; this build has: %s", msg, strings.Join(names, ", ")))
			continue
		}
		switch {
		case ch.Protocol == "":
			ch.Protocol = e.Protocol
		case e.Protocol != "" && ch.Protocol != e.Protocol:
			errs = append(errs, c.errAt(ch.line("protocol"), "challenge %s: engine %s speaks protocol %q, not %q (leave protocol out to take the engine's)", ch.Name, ch.Engine, e.Protocol, ch.Protocol))
		}
		errs = append(errs, c.checkOptions(ch, e)...)
		if ch.Adaptive != nil {
			switch {
			case !e.Batched:
				errs = append(errs, c.errAt(ch.line("adaptive"), "challenge %s: the %s engine does not play in batches, so it cannot stop early: remove adaptive (and set games) for this challenge", ch.Name, ch.Engine))
			case ch.Games == 0 && e.Games == 0:
				errs = append(errs, c.errAt(ch.line("adaptive"), "challenge %s: adaptive needs a game budget: set games (the %s engine has no default number)", ch.Name, ch.Engine))
			case ch.Games == 0: // the budget is the engine's default: hold the block to it too
				a := ch.Adaptive
				if a.Batch > e.Games {
					errs = append(errs, c.errAt(ch.line("adaptive.batch"), "challenge %s: adaptive.batch (%d) is more than the budget, the %s engine's default games (%d): set games or a smaller batch", ch.Name, a.Batch, ch.Engine, e.Games))
				}
				if a.MinGames > e.Games {
					errs = append(errs, c.errAt(ch.line("adaptive.min_games"), "challenge %s: adaptive.min_games (%d) is more than the budget, the %s engine's default games (%d): set games or a smaller min_games", ch.Name, a.MinGames, ch.Engine, e.Games))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// checkOptions checks a challenge's options block against its engine's options type.
func (c *Config) checkOptions(ch *Challenge, e Engine) []error {
	n := &ch.Options
	if n.Kind == 0 || (n.Kind == yaml.MappingNode && len(n.Content) == 0) {
		if e.Options != nil { // options an engine cannot do without (a referee's) are named now
			if err := validateOptions(e.Options()); err != nil {
				return []error{c.errAt(ch.line("engine"), "challenge %s: options: %v", ch.Name, err)}
			}
		}
		return nil
	}
	if e.Options == nil {
		return []error{c.errAt(ch.line("options"), "challenge %s: the %s engine has no options", ch.Name, ch.Engine)}
	}
	o := e.Options()
	where := " in options of challenge " + ch.Name
	if errs := unknownKeys(c.file, n, reflect.TypeOf(o), where); len(errs) > 0 {
		return errs
	}
	if err := n.Decode(o); err != nil {
		return []error{c.errAt(ch.line("options"), "challenge %s: options: %v", ch.Name, err)}
	}
	if err := validateOptions(o); err != nil {
		return []error{c.errAt(ch.line("options"), "challenge %s: options: %v", ch.Name, err)}
	}
	return nil
}

// validateOptions runs an engine's own check of its decoded options, when it has one
// (Validate() error): values the types alone do not rule out.
func validateOptions(o any) error {
	if v, ok := o.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// check finds every mistake visible without the engines, all at once.
func (c *Config) check() error {
	var errs []error
	bad := func(line int, format string, args ...any) { errs = append(errs, c.errAt(line, format, args...)) }
	if c.Cgroups != "" && c.Cgroups != "required" && c.Cgroups != "off" {
		bad(c.lines["cgroups"], "cgroups must be required or off, not %q", c.Cgroups)
	}
	if c.BotUIDFirst < 0 || c.BotUIDCount < 0 || (c.BotUIDFirst > 0 && c.BotUIDFirst < 1000) ||
		int64(c.BotUIDFirst)+int64(c.BotUIDCount) > 1<<32-2 {
		bad(c.lines["bot_uid_first"], "bot_uid_first (%d, at least 1000) and bot_uid_count (%d) must name uids below 4294967294",
			c.BotUIDFirst, c.BotUIDCount)
	}
	if c.Sandbox != "bwrap" && c.Sandbox != "none" {
		bad(c.lines["sandbox"], "sandbox must be bwrap or none, not %q", c.Sandbox)
	}
	c.checkCluster(bad)
	if c.MinQuota < 0 {
		bad(c.lines["min_quota"], "min_quota must not be negative")
	}
	if c.MaxConcurrentRuns < 1 {
		bad(c.lines["max_concurrent_runs"], "max_concurrent_runs must be at least 1, not %d", c.MaxConcurrentRuns)
	}
	loc, err := c.Location()
	if err != nil {
		bad(c.lines["timezone"], "%v", err)
		loc = time.Local
	}
	if _, err := ParseSchedule(c.Schedule, loc); err != nil {
		bad(c.lines["schedule"], "schedule: %v", err)
	}
	if len(c.Challenges) == 0 && c.lines != nil && len(c.lines) > 0 {
		bad(c.lines["challenges"], "no challenges: the config declares none, so kothd would do nothing (see docs/config.md)")
	}
	if gh := c.GitHub; (gh.Owner == "") != (gh.Repo == "") {
		bad(c.lines["github"], "github: owner and repo go together (both set to publish to GitHub, both empty not to), not owner %q and repo %q", gh.Owner, gh.Repo)
	}
	for key, v := range map[string]Duration{"stop_timeout": c.StopTimeout, "github.deadline": c.GitHub.Deadline} {
		if v < 0 {
			bad(c.lines[key], "%s must not be negative", key)
		}
	}
	if msg := checkBoardURL(c.BoardURL); msg != "" {
		bad(c.lines["board_url"], "%s", msg)
	}
	if c.Listen != "" {
		if _, port, err := net.SplitHostPort(c.Listen); err != nil || port == "" {
			bad(c.lines["listen"], "listen must be host:port (127.0.0.1:9464, :9464), not %q", c.Listen)
		}
	}
	for key, l := range c.Languages {
		if len(l.Run) == 0 {
			bad(c.lines["languages."+key], "language %s has no run command", key)
		}
	}
	seen := map[string]bool{}
	for i := range c.Challenges {
		ch := &c.Challenges[i]
		at := func(key string, format string, args ...any) {
			bad(ch.line(key), "challenge %s: "+format, append([]any{cmp.Or(ch.Name, fmt.Sprint(i+1))}, args...)...)
		}
		if ch.Name == "" || ch.QuestionID <= 0 {
			at("", "name and question_id are required")
		}
		if ch.Name != "" && !challengeName.MatchString(ch.Name) {
			at("name", "the name %q is not a short name of letters, digits, - and _ (it names files in output_dir and data_dir)", ch.Name)
		}
		if ch.Name != "" && seen[ch.Name] {
			at("name", "declared twice")
		}
		seen[ch.Name] = true
		if ch.Engine == "" {
			ch.Engine = ch.Name
		}
		if ch.Protocol != "" && !slices.Contains(Protocols, ch.Protocol) {
			at("protocol", "unknown protocol %q%s; the protocols are %s", ch.Protocol, didYouMean(ch.Protocol, Protocols), strings.Join(Protocols, ", "))
		}
		if ch.Schedule != "" {
			if _, err := ParseSchedule(ch.Schedule, loc); err != nil {
				at("schedule", "schedule: %v", err)
			}
		}
		for _, f := range []struct {
			key string
			v   int64
		}{{"games", int64(ch.Games)}, {"concurrency", int64(ch.Concurrency)},
			{"limits.call_timeout", int64(ch.Limits.CallTimeout)}, {"limits.start_timeout", int64(ch.Limits.StartTimeout)},
			{"limits.cpu_seconds", int64(ch.Limits.CPUSeconds)}, {"limits.memory_mb", int64(ch.Limits.MemoryMB)},
			{"limits.total_memory_mb", int64(ch.Limits.TotalMemoryMB)},
			{"limits.procs", int64(ch.Limits.Procs)}, {"limits.open_files", int64(ch.Limits.OpenFiles)},
			{"limits.output_kb", int64(ch.Limits.OutputKB)}, {"limits.disk_mb", int64(ch.Limits.DiskMB)},
			{"limits.build_timeout", int64(ch.Limits.BuildTimeout)},
			{"limits.build_disk_mb", int64(ch.Limits.BuildDiskMB)}, {"limits.build_cache_mb", int64(ch.Limits.BuildCacheMB)}, {"limits.run_budget", int64(ch.Limits.RunBudget)},
			{"extract.max_bytes", int64(ch.Extract.MaxBytes)},
			{"limits.name_max", int64(ch.Limits.NameMax)}, {"limits.classes_per_answer", int64(ch.Limits.ClassesPerAnswer)},
			{"limits.bots_per_challenge", int64(ch.Limits.BotsPerChallenge)}, {"limits.bots_per_author", int64(ch.Limits.BotsPerAuthor)}, {"limits.answer_budget", int64(ch.Limits.AnswerBudget)},
			{"limits.total_budget", int64(ch.Limits.TotalBudget)}, {"limits.answer_wall", int64(ch.Limits.AnswerWall)}} {
			if f.v < 0 {
				at(f.key, "%s must not be negative", f.key)
			}
		}
		c.checkExtract(ch, at)
		c.checkAdaptive(ch, at)
		c.checkQuestionBoard(ch, at)
		c.checkAnswerComments(ch, at)
	}
	return errors.Join(errs...)
}

// checkAdaptive checks what it can of an adaptive block without the engine: the budget it
// is held to may still be the engine's default (checked by Validate).
func (c *Config) checkAdaptive(ch *Challenge, at func(key, format string, args ...any)) {
	a := ch.Adaptive
	if a == nil {
		return
	}
	if a.Confidence != 0 && !(a.Confidence >= 0.5 && a.Confidence < 1) { // written so that NaN (.nan) fails too
		at("adaptive.confidence", "adaptive.confidence must be at least 0.5 and below 1 (0.95 is 95 %%), not %v", a.Confidence)
	}
	if a.Batch < 0 {
		at("adaptive.batch", "adaptive.batch must not be negative")
	}
	if a.MinGames < 0 {
		at("adaptive.min_games", "adaptive.min_games must not be negative")
	}
	if ch.Games > 0 && a.Batch > ch.Games {
		at("adaptive.batch", "adaptive.batch (%d) is more than the budget, games (%d)", a.Batch, ch.Games)
	}
	if ch.Games > 0 && a.MinGames > ch.Games {
		at("adaptive.min_games", "adaptive.min_games (%d) is more than the budget, games (%d)", a.MinGames, ch.Games)
	}
}

func (c *Config) checkExtract(ch *Challenge, at func(key, format string, args ...any)) {
	e := ch.Extract
	if e.Mode != "" && !slices.Contains(ExtractModes, e.Mode) {
		at("extract.mode", "unknown extract mode %q%s; the modes are %s", e.Mode, didYouMean(e.Mode, ExtractModes), strings.Join(ExtractModes, ", "))
	}
	if e.Mode == "class-blocks" && e.ClassPattern == "" {
		at("extract.mode", "extract mode class-blocks needs a class_pattern")
	}
	if e.ClassPattern != "" {
		if _, err := regexp.Compile(e.ClassPattern); err != nil {
			at("extract.class_pattern", "class_pattern: %v", err)
		}
	}
	if e.Language != "" && len(c.Languages) > 0 {
		if _, ok := c.Languages[e.Language]; !ok {
			keys := make([]string, 0, len(c.Languages))
			for k := range c.Languages {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			at("extract.language", "extract language %q is not in languages%s; they are %s", e.Language, didYouMean(e.Language, keys), strings.Join(keys, ", "))
		}
	}
}

func didYouMean(s string, candidates []string) string {
	if n := nearest(s, candidates); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

// errAt formats an error with the file and, when known, the line.
func (c *Config) errAt(line int, format string, args ...any) error {
	if line > 0 {
		return fmt.Errorf("%s:%d: %s", c.file, line, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s", c.file, fmt.Sprintf(format, args...))
}

// Location is the time zone schedules are read in.
func (c *Config) Location() (*time.Location, error) {
	if c.Timezone == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone %q: not a known IANA zone such as Europe/Paris or UTC", c.Timezone)
	}
	return loc, nil
}

// ZoneName names a location for a person: its IANA name, also for the machine's own zone,
// which Go calls "Local": from TZ, else the zoneinfo file /etc/localtime links to, else
// /etc/timezone, else the zone's abbreviation and offset.
func ZoneName(loc *time.Location) string {
	if loc != time.Local {
		return loc.String()
	}
	if tz := strings.TrimPrefix(os.Getenv("TZ"), ":"); tz != "" {
		return tz
	}
	if t, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(t, "zoneinfo/"); ok && name != "" {
			return name
		}
	}
	if b, err := os.ReadFile("/etc/timezone"); err == nil {
		if name := strings.TrimSpace(string(b)); name != "" {
			return name
		}
	}
	abbr, off := time.Now().In(loc).Zone()
	return fmt.Sprintf("%s (UTC%+03d:%02d)", abbr, off/3600, abs(off%3600)/60)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ScheduleOf is the cron expression a challenge runs on: its own, else the global one.
func (c *Config) ScheduleOf(ch *Challenge) string {
	if ch.Schedule != "" {
		return ch.Schedule
	}
	return c.Schedule
}

// scheduleParser reads what the daemon's scheduler (gocron's cron jobs with seconds)
// reads: five fields, or six with seconds first, or a descriptor such as @daily, with an
// optional CRON_TZ=Zone prefix.
var scheduleParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule parses a cron expression in loc (unless it names its own CRON_TZ).
func ParseSchedule(spec string, loc *time.Location) (cron.Schedule, error) {
	full := spec
	if !strings.HasPrefix(spec, "CRON_TZ=") && !strings.HasPrefix(spec, "TZ=") {
		full = "CRON_TZ=" + loc.String() + " " + spec
	}
	s, err := scheduleParser.Parse(full)
	if err != nil {
		return nil, fmt.Errorf("%q is not a cron expression (minute hour day-of-month month day-of-week, e.g. \"0 4 * * *\"): %v", spec, err)
	}
	if s.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("%q never fires", spec)
	}
	return s, nil
}

// line is where a key of the challenge was written ("" for the challenge itself).
func (ch *Challenge) line(key string) int {
	if l, ok := ch.lines[key]; ok {
		return l
	}
	return ch.lines[""]
}

// recordLines remembers where keys were written, for errors found after decoding.
func (c *Config) recordLines(doc *yaml.Node) {
	c.lines = map[string]int{}
	if len(doc.Content) == 0 {
		return
	}
	root := doc.Content[0]
	keyLines(root, "", c.lines)
	if root.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "challenges" || root.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for j, item := range root.Content[i+1].Content {
			if j < len(c.Challenges) {
				c.Challenges[j].lines = map[string]int{"": item.Line}
				keyLines(item, "", c.Challenges[j].lines)
			}
		}
	}
}

func keyLines(n *yaml.Node, prefix string, out map[string]int) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := prefix + n.Content[i].Value
		out[key] = n.Content[i].Line
		keyLines(n.Content[i+1], key+".", out)
	}
}
