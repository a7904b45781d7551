package forty

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"testing"

	"github.com/kothd/kothd/engine"
)

// The golden runs pin down, byte for byte, what every bot receives and in which order, and
// the table that comes out: a change to the scheduler or to the rules' engine that reorders
// one call, moves one call to another tick, or changes one argument or one statistic makes
// them fail. The bots are stateful across games (a class-level counter) and fault now and
// then (crashes, lost processes, a host fault that voids a game), so the order of delivery
// reaches the table. testdata/golden.json was written by the goroutine-per-game engine
// (main at 7421068) with -update; the step-function engine must reproduce it.
var update = flag.Bool("update", false, "rewrite testdata/golden.json from the current engine")

// orderBots is an Exchanger whose every reply depends on the order in which the bot
// received its calls, and which hashes, per bot, every call it receives.
type orderBots struct {
	seen  []hash.Hash
	count []int
	ticks int
}

func newOrderBots(n int) *orderBots {
	o := &orderBots{seen: make([]hash.Hash, n), count: make([]int, n)}
	for i := range o.seen {
		o.seen[i] = sha256.New()
	}
	return o
}

func (o *orderBots) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	o.ticks++
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		args, err := json.Marshal(c.Args)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(o.seen[c.Bot], "%d %s %s\n", c.Game, c.Method, args)
		o.count[c.Bot]++
		n := o.count[c.Bot]
		switch {
		case c.Method == "end":
			out[i].Result = json.RawMessage("true")
			continue
		case n%997 == 0:
			out[i].Fault = &engine.Fault{Outcome: engine.HostFault, Detail: "golden host fault"}
			continue
		case n%211 == 0:
			out[i].Fault = &engine.Fault{Outcome: engine.Crash, Detail: "golden death", ProcessDied: true}
			continue
		case n%89 == 0:
			out[i].Fault = &engine.Fault{Outcome: engine.Crash, Detail: "golden raise"}
			continue
		case n%301 == 0:
			out[i].Result = json.RawMessage(`"maybe"`) // not a boolean: the rules' default
			continue
		case c.Method == "new":
			out[i].Result = json.RawMessage("true")
			continue
		}
		var a struct{ Throws []int }
		json.Unmarshal(args, &a)
		sum := 0
		for _, t := range a.Throws {
			sum += t
		}
		more := sum < 6+c.Bot%15
		if n%13 == 0 { // the class-level whim: the order of calls reaches the table
			more = !more
		}
		out[i].Result = json.RawMessage(fmt.Sprint(more))
	}
	return out
}

type goldenRun struct {
	Calls  []string // per bot: sha256 of the calls it received, in order
	Counts []int    // per bot: calls received
	Tally  *Tally
}

func TestGoldenRuns(t *testing.T) {
	// The runs of 7 to 300 games in flight were recorded when the two groups' ticks went
	// out as two batches in turn (over a pipelining runner): one batch per tick, in the
	// groups' order, delivers the same calls. The run of 2048 was recorded later, with one
	// batch per tick.
	cases := []struct {
		name  string
		bots  int
		games int
		conc  int
	}{
		{"9bots-conc1", 9, 40, 1},
		{"12bots-conc64", 12, 400, 64},
		{"5bots-conc7", 5, 150, 7},
		{"3bots-conc300", 3, 200, 300},
		// Groups of 1024 games: thousands in flight, as a real run has.
		{"10bots-conc2048", 10, 3000, 2048},
	}
	got := map[string]goldenRun{}
	for _, c := range cases {
		o := newOrderBots(c.bots)
		tally, err := Run(context.Background(), o, goField(c.bots), Options{Games: c.games, Seed: 20261124, Concurrency: c.conc})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := goldenRun{Tally: tally, Counts: o.count}
		for _, h := range o.seen {
			r.Calls = append(r.Calls, hex.EncodeToString(h.Sum(nil)))
		}
		if tally.Voided == 0 && c.games >= 400 {
			t.Errorf("%s: no game voided: the host-fault path is not exercised", c.name)
		}
		got[c.name] = r
	}
	path := filepath.Join("testdata", "golden.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]goldenRun
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		g, w := got[c.name], want[c.name]
		if !sameTally(g.Tally, w.Tally) {
			t.Errorf("%s: tally differs from the golden run:\n got %+v\nwant %+v", c.name, g.Tally, w.Tally)
		}
		for bot := range w.Calls {
			if bot >= len(g.Calls) || g.Calls[bot] != w.Calls[bot] || g.Counts[bot] != w.Counts[bot] {
				t.Errorf("%s: bot %d received other calls than in the golden run (%d calls, golden %d)", c.name, bot, g.Counts[bot], w.Counts[bot])
			}
		}
	}
}
