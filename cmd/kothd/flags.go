package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kothd/kothd/config"
)

var (
	errHelp  = errors.New("help shown")                     // -h: usage on stdout, exit 0
	errUsage = errors.New("invalid command-line arguments") // wrapped with what was wrong; exit 2
)

// usageErr is a mistake on the command line, said plainly; the caller adds the -h hint.
func usageErr(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

type usageError struct{ msg string }

func (e *usageError) Error() string   { return e.msg }
func (e *usageError) Is(t error) bool { return t == errUsage }

// flags returns a command's flag set; its usage (for -h) shows the positional arguments.
func (cl *cli) flags() *flag.FlagSet {
	fs := flag.NewFlagSet(cl.cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse errors are reported once, by run
	fs.Usage = func() {}     // the flag package calls it on errors too; -h calls cl.usage
	return fs
}

// usage prints a command's usage on stdout, for -h.
func (cl *cli) usage(fs *flag.FlagSet) {
	cmd := cl.cmd
	{
		fmt.Fprintf(cl.out, "usage: kothd %s [flags]%s\n\n%s.\n", cmd.name, prefixed(" ", cmd.args), cmd.summary)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(cl.out, "\nflags (before or after the arguments):")
			fs.SetOutput(cl.out)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// parse reads flags wherever they are among the arguments (Go's flag package stops at the
// first positional one; a host types `kothd replay 3 0 --config /etc/kothd.yaml`) and
// checks the number of positional arguments against the command's.
func (cl *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	cmd := cl.cmd
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				cl.usage(fs)
				return nil, errHelp
			}
			return nil, usageErr("%v%s", err, flagSuggestion(fs, err))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...) // after "--" everything is an argument
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	// A command whose arguments are "[NAME...]" takes any number of them.
	if want := len(strings.Fields(cmd.args)); len(pos) != want && !strings.HasSuffix(cmd.args, "...]") {
		if want == 0 {
			return nil, usageErr("takes no arguments, got %q", strings.Join(pos, " "))
		}
		return nil, usageErr("needs %s, got %d argument(s)", cmd.args, len(pos))
	}
	return pos, nil
}

// positive is a flag that must be a whole number above zero (a count of games).
type positive int

func (p *positive) String() string {
	if p == nil || *p == 0 {
		return ""
	}
	return strconv.Itoa(int(*p))
}

func (p *positive) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("must be a whole number above zero")
	}
	*p = positive(v)
	return nil
}

// optSeed is a master seed that may be absent (then a fresh one is drawn).
type optSeed struct {
	set bool
	v   uint64
}

func (o *optSeed) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatUint(o.v, 10)
}

func (o *optSeed) Set(s string) error {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("must be a whole number from 0 to 18446744073709551615")
	}
	o.set, o.v = true, v
	return nil
}

func (o *optSeed) ptr() *uint64 {
	if !o.set {
		return nil
	}
	return &o.v
}

// choice is a flag with a fixed set of values.
type choice struct {
	v    *string
	opts []string
}

func (c choice) String() string {
	if c.v == nil {
		return ""
	}
	return *c.v
}

func (c choice) Set(s string) error {
	if !slices.Contains(c.opts, s) {
		return fmt.Errorf("must be one of %s", strings.Join(c.opts, ", "))
	}
	*c.v = s
	return nil
}

// common are the flags the commands that load the config share.
type common struct {
	config    string
	snapshot  string
	logFormat string
	logLevel  string
	// noTargets: the command publishes nothing (bench, replay), so the host's publication
	// targets are neither made nor touched: no GITHUB_TOKEN needed, the output directory
	// not repaired nor read by the board guard.
	noTargets bool
}

func (c *common) register(fs *flag.FlagSet, withSnapshot bool) {
	fs.StringVar(&c.config, "config", "config.yaml", "configuration `file`")
	if withSnapshot {
		fs.StringVar(&c.snapshot, "snapshot", "", "read answers from a recorded API snapshot in `DIR` instead of the network")
	}
	fs.Var(choice{&c.logFormat, []string{"text", "json"}}, "log-format", "log `format` on stderr: text or json (default text)")
	fs.Var(choice{&c.logLevel, []string{"debug", "info", "warn", "error"}}, "log-level", "least important log `level` shown: debug, info, warn or error (default: the command's)")
}

// logger is the log on stderr the flags ask for; def is the command's own default level.
func (c *common) logger(w io.Writer, def slog.Level) *slog.Logger {
	level := def
	if c.logLevel != "" {
		_ = level.UnmarshalText([]byte(c.logLevel)) // choice admitted only valid names
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: textDurations}
	var l *slog.Logger
	if c.logFormat == "json" {
		opts.ReplaceAttr = jsonDurations
		l = slog.New(slog.NewJSONHandler(w, opts))
	} else {
		l = slog.New(slog.NewTextHandler(w, opts))
	}
	setProcessLog(l, c.logFormat == "json")
	return l
}

// jsonDurations writes durations as seconds (a number a log collector can sum and
// compare), not slog's nanoseconds.
func jsonDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Float64(a.Key, a.Value.Duration().Round(time.Millisecond).Seconds())
	}
	return a
}

// textDurations rounds durations to the millisecond for a person reading the journal.
func textDurations(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Duration(a.Key, a.Value.Duration().Round(time.Millisecond))
	}
	return a
}

// flagSuggestion names the nearest flag after "flag provided but not defined: -gmes".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := config.Nearest(strings.TrimLeft(name, "-"), names); s != "" {
		return fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return ""
}
