package forty

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/kothd/kothd/engine"
)

// gameStreamBots answers as bots that draw from Python's module-level random do under the
// forty harness: each game has its own stream, keyed by the game's number as the calls
// name it (harness.py: pyclass.Stream("forty SEED game N")). It logs each game's calls
// and answers.
type gameStreamBots struct {
	draws map[[2]int]int   // (game, bot) -> calls answered
	log   map[int][]string // game -> "bot method args -> answer", in order
}

func newGameStreamBots() *gameStreamBots {
	return &gameStreamBots{draws: map[[2]int]int{}, log: map[int][]string{}}
}

func (b *gameStreamBots) Exchange(_ context.Context, calls []engine.Call) []engine.Reply {
	out := make([]engine.Reply, len(calls))
	for i, c := range calls {
		key := [2]int{c.Game, c.Bot}
		b.draws[key]++
		h := fnv.New64a()
		fmt.Fprintf(h, "%d %d %d", c.Game, c.Bot, b.draws[key])
		more := c.Method == "new" || c.Method == "end" || h.Sum64()%3 != 0
		args, err := json.Marshal(c.Args)
		if err != nil {
			panic(err)
		}
		out[i].Result = json.RawMessage(strconv.FormatBool(more))
		b.log[c.Game] = append(b.log[c.Game], fmt.Sprintf("bot %d %s %s -> %v", c.Bot, c.Method, args, more))
	}
	return out
}

// A replay names its game by the run's number: the harness keys each game's stream of the
// random module by that number, so a replay sent as game 0 made a bot that draws from it
// decide otherwise than in the run (cron's replay says the seeds are the run's).
func TestReplayPlaysTheRunsGame(t *testing.T) {
	ctx := context.Background()
	const seed, game = 77, 7
	bots := goField(9)
	run := newGameStreamBots()
	if _, err := Run(ctx, run, bots, Options{Games: 10, Seed: seed, Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	rep := newGameStreamBots()
	if _, err := Replay(ctx, rep, bots, seed, game, nil); err != nil {
		t.Fatal(err)
	}
	named := slices.Sorted(maps.Keys(rep.log))
	if !slices.Equal(named, []int{game}) {
		t.Fatalf("the replay of game %d named games %v in its calls", game, named)
	}
	if !reflect.DeepEqual(rep.log[game], run.log[game]) {
		t.Errorf("the replay of game %d went otherwise than the run's game:\nreplay %q\nrun    %q", game, rep.log[game], run.log[game])
	}
}
