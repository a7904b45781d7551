package referee

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kothd/kothd/engine"
)

// play plays the run's games, Run.Concurrency at a time, folded in game order: the tally
// is the list of games' outcomes, so a checkpoint holds it whole and a resumed run goes on
// from the next game.
func play(ctx context.Context, r engine.Run) (*engine.Result, error) {
	o, err := optionsOf(r)
	if err != nil {
		return nil, err
	}
	total := o.games(r)
	if total < 1 {
		return nil, fmt.Errorf("referee: a run of %d games", total)
	}
	first, err := r.Batches.Start(total)
	if err != nil {
		return nil, err
	}
	var outs []outcome
	if first > 0 {
		if err := json.Unmarshal(r.Batches.Resume.State, &outs); err != nil || len(outs) != first {
			return nil, fmt.Errorf("referee: checkpoint after %d games unreadable (%d games in it): %v", first, len(outs), err)
		}
	}
	fold, fctx := engine.NewFold(ctx, r.Batches, first, total,
		func(_ int, v outcome) { outs = append(outs, v) },
		func() ([]byte, error) { return json.Marshal(outs) },
		func() *engine.Result { return table(r, outs) })
	p := &player{r: r, o: o}
	err = p.games(fctx, first, total, total, func(g int, v outcome) { fold.Add(g, v) })
	if _, err := fold.End(err); err != nil {
		return nil, err
	}
	return finish(r, outs)
}

// finish is the run's table; a run whose every game was voided is the host's failure.
func finish(r engine.Run, outs []outcome) (*engine.Result, error) {
	res := table(r, outs)
	if res.Games == 0 && res.Voided > 0 {
		return nil, &engine.Fault{Outcome: engine.HostFault, Detail: fmt.Sprintf("every game was voided by the host's referee; the first: %s", firstVoid(outs))}
	}
	return res, nil
}

func firstVoid(outs []outcome) string {
	for _, o := range outs {
		if o.Void != "" {
			return o.Void
		}
	}
	return ""
}

// games plays games [lo, hi) of a run of total games, Run.Concurrency at a time, handing
// each outcome to done (in any order). A game cut short by the run's end is not handed on.
func (p *player) games(ctx context.Context, lo, hi, total int, done func(g int, v outcome)) error {
	next := atomic.Int64{}
	next.Store(int64(lo))
	var finished atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(p.r.Concurrency, hi-lo)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				g := int(next.Add(1) - 1)
				if g >= hi {
					return
				}
				v := p.game(ctx, g, p.o.seating(len(p.r.Bots), p.r.Seed, g))
				if ctx.Err() != nil {
					return
				}
				done(g, v)
				if p.r.Progress != nil {
					p.r.Progress(lo+int(finished.Add(1)), total)
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx)
}

// validationSeats is how many copies of a new bot its validation game seats.
func (o *Options) validationSeats() int {
	if o.Shape == Random {
		return o.Seats
	}
	return 2
}

// validate plays one game of copies of the new bot (two, or a random game's seats), each
// seat its own process, through the referee: the bot enters if one of its decisions ended
// well. A game the referee voids is the host's failure, not the bot's.
func validate(ctx context.Context, r engine.Run) error {
	o, err := optionsOf(r)
	if err != nil && !errors.Is(err, errRoundRobinBots) {
		return err
	}
	p := &player{r: r, o: o, validation: true}
	seats := make([]int, o.validationSeats())
	v := p.game(ctx, engine.NoGame, seats)
	switch {
	case v.Void != "":
		return &engine.Fault{Outcome: engine.HostFault, Detail: "validation game voided by the host's referee: " + v.Void}
	case p.ok == 0 && p.first != nil:
		return fmt.Errorf("none of its decisions ended well; the first: %s (on %s)", p.first.Error(), p.input)
	case p.ok == 0:
		return fmt.Errorf("the referee asked it nothing: it cannot be validated")
	}
	return nil
}

// replay plays game g of a past run again, alone, with its seats, seed and referee, and
// traces every line the bots read and wrote.
func replay(ctx context.Context, r engine.Run, g int, trace func(string)) error {
	o, err := optionsOf(r)
	if err != nil {
		return err
	}
	if total := o.games(r); g < 0 || g >= total {
		return fmt.Errorf("referee: no game %d in a run of %d", g, total)
	}
	trace(fmt.Sprintf("game %d again: the same seats, seed and referee; a bot or referee that draws from unseeded randomness may decide differently", g))
	p := &player{r: r, o: o, trace: trace}
	v := p.game(ctx, g, o.seating(len(r.Bots), r.Seed, g))
	if v.Void != "" {
		return &engine.Fault{Outcome: engine.HostFault, Detail: "game voided by the host's referee: " + v.Void}
	}
	return nil
}

// The run in shards of consecutive games (engine.Sharding): a shard's state is its games'
// outcomes, and merging concatenates them.
var sharding = &engine.Sharding{
	Games: 50,
	Play: func(ctx context.Context, r engine.Run, first, count int, _ []byte) ([]byte, error) {
		o, err := optionsOf(r)
		if err != nil {
			return nil, err
		}
		total := o.games(r)
		if first < 0 || count < 1 || first+count > total {
			return nil, fmt.Errorf("referee: shard of games %d..%d does not fit a run of %d", first, first+count-1, total)
		}
		outs := make([]outcome, count)
		p := &player{r: r, o: o}
		var mu sync.Mutex
		if err := p.games(ctx, first, first+count, total, func(g int, v outcome) {
			mu.Lock()
			defer mu.Unlock()
			outs[g-first] = v
		}); err != nil {
			return nil, err
		}
		return json.Marshal(outs)
	},
	Merge: func(acc, shard []byte) ([]byte, error) {
		var a, b []outcome
		if err := json.Unmarshal(shard, &b); err != nil {
			return nil, fmt.Errorf("referee: shard state unreadable: %w", err)
		}
		if acc != nil {
			if err := json.Unmarshal(acc, &a); err != nil {
				return nil, fmt.Errorf("referee: merged state unreadable: %w", err)
			}
		}
		return json.Marshal(append(a, b...))
	},
	Table: func(r engine.Run, state []byte) (*engine.Result, error) {
		var outs []outcome
		if err := json.Unmarshal(state, &outs); err != nil {
			return nil, fmt.Errorf("referee: state unreadable: %w", err)
		}
		return finish(r, outs)
	},
}
