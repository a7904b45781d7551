package all_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/sandbox"
)

// The conformance suite every registered game passes, whatever its protocol: the same seed
// gives the same table; a bot that fails every decision has its faults counted by the
// engine (the rules' default applied); and replaying a game of a run asks every bot exactly
// what the run asked it in that game, with the same answers. The bots are the game's
// baselines (pyclass: in their real harness, unsandboxed; argv: the engine's own) beside
// Go stand-ins of the protocol, and one bot that fails every decision.
func TestConformance(t *testing.T) {
	reg := all.Games()
	for _, name := range reg.Names() {
		g, _ := reg.Lookup(name)
		t.Run(name, func(t *testing.T) { conform(t, g) })
	}
}

// conformanceOptions keeps the games short.
var conformanceOptions = map[string]string{
	"whiteelephant": "winning_score: 40\n",
	"bankheist":     "games_per_tournament: 4\n",
}

func conform(t *testing.T, g *engine.Game) {
	t.Helper()
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(conformanceOptions[g.Name]), &node); err != nil {
		t.Fatal(err)
	}
	var opts any
	var err error
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
		opts, err = g.DecodeOptions(node.Content[0])
	} else {
		opts, err = g.DecodeOptions(nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := opts.(engine.HasReferee); ok {
		t.Skip("its rules are a host's program, which the host starts: engine/referee's tests play it with real referees")
	}
	conn := newConn(t, g)
	r := engine.Run{Bots: conn.bots, Seed: 20260101, Games: 4, Concurrency: 3, Options: opts}

	first, firstRec := conn.play(t, r)
	second, _ := conn.play(t, r)
	if !sameTable(first, second) {
		t.Errorf("the same seed gave two tables:\n%+v\n%+v", first.Rows, second.Rows)
	}
	faulty := conn.bots[len(conn.bots)-1].Name
	if firstRec.faults == 0 {
		t.Errorf("the failing bot %s was never asked", faulty)
	}
	for _, row := range first.Rows {
		if row.Bot == faulty && row.Errors == 0 {
			t.Errorf("%s failed %d decisions; its row counts no error: %+v", faulty, firstRec.faults, row)
		}
	}

	planned := r.Games
	if g.Planned != nil {
		planned = g.Planned(r, first)
	}
	for _, game := range []int{0, planned - 1} {
		rec := conn.replay(t, r, game)
		runKey, replayKey := conn.keys(firstRec, game)
		want, got := firstRec.game(runKey), rec.game(replayKey)
		if len(want) == 0 {
			t.Fatalf("the run asked nothing in game %d", game)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the replay of game %d differs from the run:\nrun:    %s\nreplay: %s", game, clipRecs(want), clipRecs(got))
		}
	}
}

// keys returns where a run's recording holds game number game, and where its replay's
// recording holds it. Every decision names its game (engine.Call.Game, engine.At.Game), as
// Replay numbers them; a pyclass replay numbers its calls' games its own way.
func (c *conn) keys(run *recording, game int) (int, int) {
	if c.g.Protocol == engine.PyClass {
		return game, -1
	}
	return game, game
}

func sameTable(a, b *engine.Result) bool {
	return a.Games == b.Games && a.Voided == b.Voided && reflect.DeepEqual(a.Columns, b.Columns) &&
		reflect.DeepEqual(a.Rows, b.Rows) && a.Appendix == b.Appendix
}

// decision is one decision as a bot saw it: what it was asked and what it answered.
type decision struct {
	Bot    int
	Asked  string
	Answer string
}

// recording holds a run's decisions by game (-1: a replay, whose own numbering is not the
// run's) and counts the failing bot's faults.
type recording struct {
	mu     sync.Mutex
	byGame map[int][]decision
	faults int
}

func (r *recording) add(game int, d decision, fault bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byGame == nil {
		r.byGame = map[int][]decision{}
	}
	r.byGame[game] = append(r.byGame[game], d)
	if fault {
		r.faults++
	}
}

// game returns a game's decisions per bot, in the order each bot saw them.
func (r *recording) game(g int) map[int][]decision {
	out := map[int][]decision{}
	for _, d := range r.byGame[g] {
		out[d.Bot] = append(out[d.Bot], d)
	}
	return out
}

func clipRecs(m map[int][]decision) string {
	s := fmt.Sprint(m)
	if len(s) > 1500 {
		s = s[:1500] + "…"
	}
	return s
}

// conn connects a game's conformance bots through its protocol.
type conn struct {
	g    *engine.Game
	bots []engine.Entrant
	dir  string // pyclass: the baselines' directory
}

func newConn(t *testing.T, g *engine.Game) *conn {
	c := &conn{g: g}
	switch g.Protocol {
	case engine.PyClass:
		c.dir = t.TempDir()
		if err := os.WriteFile(filepath.Join(c.dir, "bot.py"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		h := g.Harness
		if err := pyclass.InstallHarness(c.dir, h.Module, h.Source); err != nil {
			t.Fatal(err)
		}
		if len(g.Baselines) == 0 {
			t.Fatalf("%s: a pyclass game needs a baseline for the conformance suite", g.Name)
		}
		for i := range max(2, len(g.Baselines)) {
			c.bots = append(c.bots, engine.Entrant{Name: fmt.Sprintf("%s%d", g.Baselines[i%len(g.Baselines)], i), Seed: uint64(100 + i)})
		}
	default:
		for _, b := range g.Baselines {
			c.bots = append(c.bots, engine.Entrant{Name: b, Baseline: true, Seed: uint64(len(c.bots) + 1)})
		}
		c.bots = append(c.bots, engine.Entrant{Name: "Steady", Seed: 7}, engine.Entrant{Name: "Other", Seed: 8})
	}
	return append0(c)
}

// append0 adds the bot that fails every decision, last.
func append0(c *conn) *conn {
	c.bots = append(c.bots, engine.Entrant{Name: "Failing", Seed: 99})
	return c
}

func (c *conn) failing(bot int) bool { return bot == len(c.bots)-1 }

// open connects r to fresh bots and returns the recording and a closer.
func (c *conn) open(t *testing.T, r *engine.Run, replay bool) (*recording, func()) {
	rec := &recording{}
	if c.g.Protocol == engine.Argv { // decisions the engine settles itself (its own bots)
		r.Fault = func(at engine.At, bot int, f *engine.Fault, input any) {
			in, _ := json.Marshal(input)
			rec.add(at.Game, decision{Bot: bot, Asked: string(in), Answer: faultText(f)}, c.failing(bot) && f != nil)
		}
	}
	switch c.g.Protocol {
	case engine.PyClass:
		py := make([]engine.Bot, len(c.bots))
		for i, b := range c.bots {
			py[i] = engine.Bot{Entrant: engine.Entrant{Name: c.g.Baselines[i%len(c.g.Baselines)], Seed: b.Seed}, Dir: c.dir}
		}
		pool := pyclass.NewPyPool(sandbox.Unsandboxed{}, pyclass.PyConfig{Harness: c.g.Harness.Module, Python: "/usr/bin/python3",
			CallTimeout: 5 * time.Second, StartTimeout: 60 * time.Second, MaxRestarts: 3}, py)
		r.Calls = &recordingExchanger{c: c, ex: pool, rec: rec, replay: replay}
		return rec, pool.Close
	case engine.Argv:
		r.Launch = &recordingLauncher{c: c, rec: rec, replay: replay}
	case engine.DirFiles:
		r.Files = &recordingDirs{c: c, rec: rec, replay: replay, game: make([]int, len(c.bots))}
	}
	return rec, func() {}
}

func (c *conn) play(t *testing.T, r engine.Run) (*engine.Result, *recording) {
	t.Helper()
	rec, closeFn := c.open(t, &r, false)
	defer closeFn()
	res, err := c.g.Play(context.Background(), r)
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	return res, rec
}

func (c *conn) replay(t *testing.T, r engine.Run, game int) *recording {
	t.Helper()
	rec, closeFn := c.open(t, &r, true)
	defer closeFn()
	var lines int
	if err := c.g.Replay(context.Background(), r, game, func(string) { lines++ }); err != nil {
		t.Fatalf("replay of game %d: %v", game, err)
	}
	if lines == 0 {
		t.Errorf("the replay of game %d wrote no trace", game)
	}
	return rec
}

func faultText(f *engine.Fault) string {
	if f == nil {
		return ""
	}
	return "fault: " + string(f.Outcome)
}

// recordingExchanger makes the failing bot crash and records every call.
type recordingExchanger struct {
	c      *conn
	ex     engine.Exchanger
	rec    *recording
	replay bool
}

func (e *recordingExchanger) Exchange(ctx context.Context, calls []engine.Call) []engine.Reply {
	var pass []engine.Call
	var idx []int
	replies := make([]engine.Reply, len(calls))
	for i, cl := range calls {
		if e.c.failing(cl.Bot) {
			replies[i] = engine.Reply{Fault: &engine.Fault{Outcome: engine.Crash, Detail: "the failing bot"}}
			continue
		}
		pass = append(pass, cl)
		idx = append(idx, i)
	}
	if len(pass) > 0 {
		for k, r := range e.ex.Exchange(ctx, pass) {
			replies[idx[k]] = r
		}
	}
	for i, cl := range calls {
		args, _ := json.Marshal(cl.Args)
		game := cl.Game
		if e.replay {
			game = -1
		}
		ans := string(replies[i].Result) + faultText(replies[i].Fault)
		e.rec.add(game, decision{Bot: cl.Bot, Asked: cl.Method + " " + string(args), Answer: ans}, e.c.failing(cl.Bot))
	}
	return replies
}

// recordingLauncher answers like a program: "0" from every bot but the failing one.
type recordingLauncher struct {
	c      *conn
	rec    *recording
	replay bool
}

func (l *recordingLauncher) Launch(ctx context.Context, unit int, at engine.At, bot int, args []string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	ans, f := "0", (*engine.Fault)(nil)
	if l.c.failing(bot) {
		ans, f = "", &engine.Fault{Outcome: engine.Crash, Detail: "the failing bot"}
	} else if check != nil {
		f = check(ans)
	}
	in, _ := json.Marshal(input)
	l.rec.add(at.Game, decision{Bot: bot, Asked: string(in), Answer: ans + faultText(f)}, l.c.failing(bot))
	return ans, f
}

func (l *recordingLauncher) Command(bot int) string { return "./bot" }
func (l *recordingLauncher) EndUnit(int)            {}

// recordingDirs stands in for dirfiles bots: every bot stays silent, the failing one
// crashes. A game starts for a bot at Setup, which names it; Deliver names none, so it is
// recorded under the bot's game.
type recordingDirs struct {
	c      *conn
	rec    *recording
	replay bool
	mu     sync.Mutex
	game   []int // per bot: the game set up last
	from   []string
}

func (d *recordingDirs) Setup(game, bot int, players []string) error {
	d.mu.Lock()
	d.game[bot] = game
	d.mu.Unlock()
	d.note(bot, fmt.Sprint("setup ", players), "", false)
	return nil
}

func (d *recordingDirs) Deliver(bot int, text string) error {
	d.note(bot, "deliver "+text, "", false)
	return nil
}

func (d *recordingDirs) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	d.mu.Lock()
	set := d.game[bot]
	d.mu.Unlock()
	if at.Game != set {
		d.rec.add(at.Game, decision{Bot: bot, Asked: fmt.Sprintf("run in game %d, set up for game %d", at.Game, set)}, false)
	}
	if d.c.failing(bot) {
		d.note(bot, "run", "crash", true)
		return "", &engine.Fault{Outcome: engine.Crash, Detail: "the failing bot"}
	}
	d.note(bot, "run", "", false)
	return "", nil
}

func (d *recordingDirs) LastExit(bot int) int { return 0 }

func (d *recordingDirs) note(bot int, asked, answer string, fault bool) {
	d.mu.Lock()
	g := d.game[bot]
	d.mu.Unlock()
	d.rec.add(g, decision{Bot: bot, Asked: asked, Answer: answer}, fault)
}
