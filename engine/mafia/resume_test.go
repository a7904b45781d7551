package mafia

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/kothd/kothd/engine"
)

// keepers are bots that keep a file between games: the number of games they have begun,
// which decides whom they vote for. They keep it through engine.DirKeeper, as the runner's
// directories do, so a resumed tournament must hand it back for the bots to play on alike.
type keepers struct {
	*fakeBots
	mu     sync.Mutex
	begun  []int
	games  []int // per bot: the game At.Game named at its last run
	played map[int]bool
}

func newKeepers(n int) *keepers {
	k := &keepers{begun: make([]int, n), games: make([]int, n), played: map[int]bool{}}
	k.fakeBots = newFake(n, func(bot int, from string) string {
		k.mu.Lock()
		defer k.mu.Unlock()
		ps := k.fakeBots.players[bot]
		return "vote " + ps[k.begun[bot]%len(ps)] + "\n"
	})
	return k
}

func (k *keepers) Setup(game, bot int, players []string) error {
	k.mu.Lock()
	k.begun[bot]++
	k.played[game] = true
	k.mu.Unlock()
	return k.fakeBots.Setup(game, bot, players)
}

func (k *keepers) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	k.mu.Lock()
	k.games[bot] = at.Game
	k.mu.Unlock()
	return k.fakeBots.Run(ctx, at, bot, collect)
}

func (k *keepers) Keep(bot int) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return []byte(strconv.Itoa(k.begun[bot])), nil
}

func (k *keepers) Restore(bot int, kept []byte) error {
	n, err := strconv.Atoi(string(kept))
	k.mu.Lock()
	k.begun[bot] = n
	k.mu.Unlock()
	return err
}

var errKilled = errors.New("killed")

// A tournament checkpointed after game k and resumed from it plays only games k.. and,
// with the bots' kept files handed back, ends with the table of the tournament played
// straight; without them (a resume that lost the files) it does not, which is what the
// files are kept for.
func TestResumeKeepsBotFiles(t *testing.T) {
	ctx := context.Background()
	entrants := []engine.Entrant{{Name: "Ann"}, {Name: "Bob"}, {Name: "Cid"}, {Name: "Dot"}}
	opt := Options{Games: 8, Parallel: 2}
	want, err := Play(ctx, newKeepers(4), entrants, 9, opt, nil)
	if err != nil {
		t.Fatal(err)
	}

	var cps []engine.Checkpoint
	o := opt
	o.Batches = &engine.Batches{Every: 1, Done: func(cp engine.Checkpoint, _ func() *engine.Result) (bool, error) {
		cps = append(cps, cp)
		if cp.Done == 5 {
			return false, errKilled
		}
		return false, nil
	}}
	if _, err := Play(ctx, newKeepers(4), entrants, 9, o, nil); !errors.Is(err, errKilled) {
		t.Fatalf("the killed tournament ended with %v", err)
	}
	if len(cps) != 5 || cps[4].Done != 5 {
		t.Fatalf("checkpoints %+v", cps)
	}

	k := newKeepers(4)
	o.Batches = &engine.Batches{Resume: &cps[4], Every: 1, Done: func(engine.Checkpoint, func() *engine.Result) (bool, error) { return false, nil }}
	got, err := Play(ctx, k, entrants, 9, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed after 5 games:\n%+v\nstraight:\n%+v", got.Rows, want.Rows)
	}
	for g := range k.played {
		if g < 5 {
			t.Errorf("the resumed tournament played game %d again", g)
		}
	}
	if k.begun[0] != 8 {
		t.Errorf("bot 0 counts %d games begun after the resumed tournament, want 8", k.begun[0])
	}

	// The control: the same resume with the files lost plays differently.
	lost := &forgetful{newKeepers(4)}
	got, err = Play(ctx, lost, entrants, 9, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(got.Rows, want.Rows) {
		t.Error("bots that lost their files played as if they had kept them: the test proves nothing")
	}
}

// forgetful hands back no files.
type forgetful struct{ *keepers }

func (f *forgetful) Restore(int, []byte) error { return nil }
