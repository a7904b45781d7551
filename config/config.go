// Package config reads config.yaml: the host's challenges, languages, limits, schedules and
// publishing targets. It holds plain data; the packages that act on it take the parts they
// need as arguments.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole of config.yaml.
type Config struct {
	DataDir   string `yaml:"data_dir"`   // SQLite file, bot directories, build cache
	OutputDir string `yaml:"output_dir"` // where leaderboards are written
	// BoardURL is where the public reads output_dir (a web server over it, GitHub Pages):
	// the question's table and answer comments link <board_url>/<challenge>.md. Empty: the
	// GitHub sink's page when there is one, else no link.
	BoardURL string `yaml:"board_url"`
	Site     string `yaml:"site"`     // Stack Exchange site, "codegolf"
	APIKey   string `yaml:"api_key"`  // optional; SE_API_KEY in the environment wins
	APIBase  string `yaml:"api_base"` // default https://api.stackexchange.com/2.3
	// MinQuota: below this many remaining requests the client stops for the day and the
	// last good data stays (default 10).
	MinQuota int    `yaml:"min_quota"`
	Sandbox  string `yaml:"sandbox"` // "bwrap" (default) or "none"
	Cgroups  string `yaml:"cgroups"` // per-sandbox limits: "required" (default) or "off" (logged as an error)
	// BotUIDFirst and BotUIDCount are the host uids a root daemon's sandboxes run as, one
	// per bot directory (default 2,000,000,000 and 65,536); unused by a non-root daemon.
	BotUIDFirst int    `yaml:"bot_uid_first"`
	BotUIDCount int    `yaml:"bot_uid_count"`
	Python      string `yaml:"python"`   // interpreter for pyclass harnesses
	Schedule    string `yaml:"schedule"` // default cron expression for every challenge
	// Timezone is the IANA zone schedules are read in ("Europe/Paris"); empty = the
	// machine's. A schedule may still name its own with a CRON_TZ= prefix.
	Timezone string `yaml:"timezone"`
	// MaxConcurrentRuns bounds the cycles the daemon runs at once (default 1): bots of two
	// challenges played together share the cores and distort each other's time limits.
	MaxConcurrentRuns int                 `yaml:"max_concurrent_runs"`
	GitHub            GitHub              `yaml:"github"`
	Languages         map[string]Language `yaml:"languages"`
	Challenges        []Challenge         `yaml:"challenges"`

	file  string         // the file it was loaded from, for messages
	lines map[string]int // key → line of top-level keys

	// StopTimeout bounds how long kothd takes to exit after SIGTERM/SIGINT (default 10s).
	StopTimeout Duration `yaml:"stop_timeout"`
	// Listen, when set, is the address (host:port) the daemon serves /metrics (Prometheus)
	// and /healthz on; empty: none. Keep it on localhost or a private network.
	Listen string `yaml:"listen"`
	// PythonImports are modules the python interpreter must import, checked before each
	// cycle (default [numpy], which answers import); [] checks none.
	PythonImports []string `yaml:"python_imports"`
	// PythonFast (default true) lets the pyclass harness serve its batches in the C loop
	// kothd builds for python (runner/protocol/pyclass/pyfast.go); false: its Python loop.
	PythonFast *bool `yaml:"python_fast"`
	// Cluster, when set, plays runs through NATS JetStream workers (cluster.go).
	Cluster *Cluster `yaml:"cluster"`
}

// GitHub is where leaderboards are pushed. Empty Repo means "directory only".
type GitHub struct {
	Owner   string `yaml:"owner"`
	Repo    string `yaml:"repo"`
	Branch  string `yaml:"branch"`
	Path    string `yaml:"path"`     // folder in the repository, e.g. "leaderboards"
	BaseURL string `yaml:"base_url"` // for GitHub Enterprise or tests; empty = api.github.com
	// Deadline bounds one publication, retries and rate-limit waits included (default 5m).
	Deadline Duration `yaml:"deadline"`
	// The token comes from the GITHUB_TOKEN environment variable, never from this file.
}

// Language says how to run (and maybe build) a bot written in one language.
type Language struct {
	Aliases []string `yaml:"aliases"` // header spellings, e.g. ["Python 3", "python3", "Python"]
	File    string   `yaml:"file"`    // source file name, e.g. bot.py
	Build   []string `yaml:"build"`   // optional build command, run in the bot directory
	Run     []string `yaml:"run"`     // run command, relative to the bot directory
}

// Challenge is one hosted question.
type Challenge struct {
	Name       string `yaml:"name"` // short name: forty, ruins, …
	Title      string `yaml:"title"`
	QuestionID int64  `yaml:"question_id"`
	Engine     string `yaml:"engine"`   // engine name; usually the challenge name
	Protocol   string `yaml:"protocol"` // pyclass, argv or dirfiles
	Schedule   string `yaml:"schedule"` // cron expression; empty = the global one
	Games      int    `yaml:"games"`    // games per run; 0 = the engine's default
	// Concurrency is how many games run at once (lockstep engines); it is part of what makes
	// a run reproducible and is recorded with it.
	Concurrency int       `yaml:"concurrency"`
	Baselines   bool      `yaml:"baselines"` // let the engine's built-in bots compete
	Exclude     []string  `yaml:"exclude"`   // bot names the host keeps out
	Limits      Limits    `yaml:"limits"`
	Extract     Extract   `yaml:"extract"`
	Options     yaml.Node `yaml:"options"` // engine-specific settings, decoded by the engine's adapter
	// Adaptive, when set, makes a run as long as its order needs, `games` being its budget.
	Adaptive *Adaptive `yaml:"adaptive"`
	// QuestionBoard, when enabled, keeps a table of the leaders in the question itself.
	QuestionBoard *QuestionBoard `yaml:"question_board"`
	// AnswerComments, when enabled, tells an answer's author in a comment on it why its
	// current revision is not entered (answer_comments.go).
	AnswerComments *AnswerComments `yaml:"answer_comments"`

	lines map[string]int // key → line in the file, for messages about values checked later
}

// Adaptive is a challenge's adaptive run length (docs/leaderboard.md, "Adaptive length"):
// the run plays its games in batches and stops once it has played MinGames and every pair
// of adjacent ranks is separated at Confidence, else when its budget (`games`) is spent.
// Zero values take the defaults (cron resolves them against the budget).
type Adaptive struct {
	Confidence float64 `yaml:"confidence"` // the level adjacent ranks must be separated at; 0.95
	Batch      int     `yaml:"batch"`      // games between two looks at the order; a tenth of the budget
	MinGames   int     `yaml:"min_games"`  // games played before the run may stop; one batch
}

// QuestionBoard is a challenge's table in its own question (docs/leaderboard.md, "The
// question's own table"): kothd edits the text between the host's markers, with the
// access token in SE_ACCESS_TOKEN (never in this file).
type QuestionBoard struct {
	Enabled bool `yaml:"enabled"`
	Top     int  `yaml:"top"` // rows shown; default DefaultQuestionTop
	// MinInterval is the least time between two edits (default DefaultQuestionInterval):
	// every edit bumps the question to the front page of the site.
	MinInterval Duration `yaml:"min_interval"`
}

// Defaults and bounds of question_board.
const (
	DefaultQuestionTop      = 10
	MaxQuestionTop          = 50
	DefaultQuestionInterval = 24 * time.Hour
	MinQuestionInterval     = time.Hour
)

// TopRows is the number of rows the question's table shows.
func (q *QuestionBoard) TopRows() int {
	if q.Top == 0 {
		return DefaultQuestionTop
	}
	return q.Top
}

// Interval is the least time between two edits of the question.
func (q *QuestionBoard) Interval() time.Duration { return q.MinInterval.D(DefaultQuestionInterval) }

// Limits bound every bot process of a challenge.
type Limits struct {
	CallTimeout  Duration `yaml:"call_timeout"`  // per decision
	StartTimeout Duration `yaml:"start_timeout"` // start-up allowance (imports, JVM)
	CPUSeconds   int      `yaml:"cpu_seconds"`   // per process
	MemoryMB     int      `yaml:"memory_mb"`
	Procs        int      `yaml:"procs"`
	OpenFiles    int      `yaml:"open_files"`
	OutputKB     int      `yaml:"output_kb"`
	DiskMB       int      `yaml:"disk_mb"`
	BuildTimeout Duration `yaml:"build_timeout"`
	BuildDiskMB  int      `yaml:"build_disk_mb"`  // a build's directory and temporary files (runner/build's default when 0)
	BuildCacheMB int      `yaml:"build_cache_mb"` // the challenge's built bot directories together (cron's default when 0)
	RunBudget    Duration `yaml:"run_budget"`     // time a bot may spend answering over a whole run (docs/config.md)
	// Caps on what answers bring (issue 10); whatever exceeds one is not entered, with the
	// cap named. Zero or empty: the defaults in cron/caps.go.
	NameMax          int      `yaml:"name_max"`           // characters in a bot's name (64)
	NamePattern      string   `yaml:"name_pattern"`       // regexp a name must match (a Python identifier)
	ClassesPerAnswer int      `yaml:"classes_per_answer"` // competing classes of one answer (10)
	BotsPerChallenge int      `yaml:"bots_per_challenge"` // answers' bots in one run (200)
	BotsPerAuthor    int      `yaml:"bots_per_author"`    // of them, from one account's answers (a quarter of bots_per_challenge, at least 10)
	AnswerBudget     Duration `yaml:"answer_budget"`      // time all classes of one answer may spend over a run
	AnswerWall       Duration `yaml:"answer_wall"`        // wall time all classes of one answer may hold a run up (answer_budget)
	TotalBudget      Duration `yaml:"total_budget"`       // time all bots together may spend over a run
	// FaultStreak benches a bot after that many faulted decisions in a row (0: the
	// default, protocol.FaultStreak's 20; negative: never).
	FaultStreak int `yaml:"fault_streak"`
	// TotalMemoryMB bounds the memory of all bots of a run together (their run's cgroup);
	// 0: half of the machine's memory.
	TotalMemoryMB int `yaml:"total_memory_mb"`
}

// Extract says how an answer becomes bot files.
type Extract struct {
	// Mode: "class-blocks" (every code block with a line matching ClassPattern, several
	// bots per answer), "first-block" (the first code block), "multi-file" (files named in
	// the answer, for any-language challenges).
	Mode         string `yaml:"mode"`
	ClassPattern string `yaml:"class_pattern"`
	// HeaderLanguage: the first heading reads "Name, Language".
	HeaderLanguage bool   `yaml:"header_language"`
	Language       string `yaml:"language"` // fixed language when the challenge has one
	MaxBytes       int    `yaml:"max_bytes"`
}

// Duration reads "250ms", "2s" from YAML.
type Duration time.Duration

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		// A type error, not a plain one: yaml.v3 then goes on decoding the rest, so the
		// config's other mistakes are found too (Load reports this one with its key).
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	*d = Duration(v)
	return nil
}

// D returns the value as a time.Duration, or def when unset.
func (d Duration) D(def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}

// Load reads and checks a config file. Relative directories are taken relative to the
// file's own directory, so a config works from wherever kothd is started. Every mistake it
// can see without knowing the engines is an error naming file:line: an unknown key (with
// the nearest known one), a bad schedule, time zone, extraction mode or protocol. The
// engines are checked by Validate, which the caller gives the list of this build's engines.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("parse config %s: %w", path, err)
	}
	// Every mistake at once: unknown keys and values of the wrong type do not stop the
	// checks of the rest (decoding goes past them), so one edit fixes them all.
	errs := unknownKeys(path, &doc, reflect.TypeOf(Config{}), "")
	var c Config
	if len(doc.Content) == 0 {
		errs = append(errs, fmt.Errorf("%s: the config is empty: it needs at least one challenge (see docs/config.md)", path))
	} else if err := doc.Decode(&c); err != nil && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("parse config %s: %w", path, err)) // what the type checks missed
	}
	c.file = path
	c.recordLines(&doc)
	// Paths are absolute and clean from here on: what kothd records (publication targets,
	// bot directories) must not depend on the directory it was started from nor on how
	// the path was spelt.
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	base := filepath.Dir(abs)
	c.DataDir = resolve(base, cmp.Or(c.DataDir, "data"))
	c.OutputDir = resolve(base, cmp.Or(c.OutputDir, "leaderboards"))
	c.Site = cmp.Or(c.Site, "codegolf")
	c.APIBase = cmp.Or(c.APIBase, "https://api.stackexchange.com/2.3")
	c.Sandbox = cmp.Or(c.Sandbox, "bwrap")
	c.Python = cmp.Or(c.Python, "/usr/bin/python3")
	c.Schedule = cmp.Or(c.Schedule, "0 4 * * *")
	if c.MaxConcurrentRuns == 0 {
		c.MaxConcurrentRuns = 1
	}
	if k := os.Getenv("SE_API_KEY"); k != "" {
		c.APIKey = k
	}
	if err := c.check(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &c, nil
}

// Challenge returns the challenge with the given name.
func (c *Config) Challenge(name string) (*Challenge, error) {
	for i := range c.Challenges {
		if c.Challenges[i].Name == name {
			return &c.Challenges[i], nil
		}
	}
	names := c.Names()
	msg := fmt.Sprintf("no challenge named %q in %s; the challenges are: %s", name, cmp.Or(c.file, "the config"), strings.Join(names, ", "))
	if s := nearest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return nil, errors.New(msg)
}

// Names lists the challenges in config order.
func (c *Config) Names() []string {
	var out []string
	for _, ch := range c.Challenges {
		out = append(out, ch.Name)
	}
	return out
}

func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
