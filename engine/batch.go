package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Fold gathers the results of a run's units of play (games, or tournaments where state
// carries from game to game), which finish out of order when many are in flight, and
// folds them into the engine's tally in unit order. A result is held only until every
// earlier unit has been folded, so memory grows with the units in flight, never with the
// length of the run, and the tally after unit k is the same whatever the concurrency.
//
// With Run.Batches set, Fold also implements the checkpoint contract: at every multiple
// of the batch size (counted from unit 0, so a resumed run has the same boundaries as an
// uninterrupted one) it calls Batches.Done with the engine's encoded state, and it ends
// the run when Done says stop or fails. The end of the run is no boundary: the run's
// table says all there is.
//
// add and state are called with Fold's lock held, one at a time, in unit order; so is
// sofar, from Done.
type Fold[T any] struct {
	mu      sync.Mutex
	next    int // units folded: every unit below next is in the tally
	end     int
	held    map[int]T
	add     func(unit int, v T)
	b       *Batches
	every   int
	state   func() ([]byte, error)
	sofar   func() *Result
	games   func(units int) int // the games in the first units units; nil: a unit is a game
	stopped bool
	err     error
	ctx     context.Context // the caller's
	cancel  context.CancelCauseFunc
}

// errStopped is the cause of the run's context once Batches.Done has asked to stop.
var errStopped = errors.New("the host ended the run early")

// NewFold starts folding a run of units units whose first start have been folded already
// (a resumed run: the engine has restored its tally from the checkpoint). b may be nil (no
// checkpoints). The returned context is the run's: it is cancelled when Done stops or
// fails the run, so the engine's scheduler starts no further unit; play under it and call
// End when the scheduler returns.
func NewFold[T any](ctx context.Context, b *Batches, start, units int, add func(unit int, v T), state func() ([]byte, error), sofar func() *Result) (*Fold[T], context.Context) {
	f := &Fold[T]{ctx: ctx, next: start, end: units, held: map[int]T{}, add: add, b: b, state: state, sofar: sofar}
	if b != nil && b.Done != nil {
		f.every = max(b.Every, 1)
	}
	var run context.Context
	run, f.cancel = context.WithCancelCause(ctx)
	return f, run
}

// Start is the first unit a run plays: after its checkpoint when it resumes, else 0. It
// checks the checkpoint against the run's length.
func (b *Batches) Start(units int) (int, error) {
	if b == nil || b.Resume == nil {
		return 0, nil
	}
	if d := b.Resume.Done; d < 0 || d > units {
		return 0, fmt.Errorf("checkpoint after %d games does not fit a run of %d", d, units)
	}
	return b.Resume.Done, nil
}

// CountGames makes a fold of units of several games each (Bank Heist's tournaments, whose
// games carry credits from one to the next) checkpoint at every unit's end, reporting the
// games the folded units hold: games(k) for k units. The host saves the first boundary at
// or past each multiple of Batches.Every games, so a run's checkpoints come at the
// same games whatever the unit. Call it before the first Add.
func (f *Fold[T]) CountGames(games func(units int) int) {
	f.games = games
	if f.every > 0 {
		f.every = 1
	}
}

// StartUnit is Start for a run of units units of several games each: the unit after the
// checkpoint, which must fall at a unit's end (games(k) for some k).
func (b *Batches) StartUnit(units int, games func(units int) int) (int, error) {
	if b == nil || b.Resume == nil {
		return 0, nil
	}
	for k := 0; k <= units; k++ {
		if games(k) == b.Resume.Done {
			return k, nil
		}
	}
	return 0, fmt.Errorf("checkpoint after %d games falls inside a unit of play of this run (%d games in all)", b.Resume.Done, games(units))
}

// Add hands Fold the result of unit u. It folds every result it can in order and reports
// the checkpoints that reaches; it is safe to call from many goroutines. A result that
// arrives after the run was stopped is dropped (its unit is past the end).
func (f *Fold[T]) Add(u int, v T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped || f.err != nil || u < f.next {
		return
	}
	f.held[u] = v
	for {
		v, ok := f.held[f.next]
		if !ok {
			return
		}
		delete(f.held, f.next)
		f.add(f.next, v)
		f.next++
		if f.every > 0 && f.next%f.every == 0 && f.next < f.end {
			f.checkpoint()
			if f.stopped || f.err != nil {
				return
			}
		}
	}
}

// checkpoint reports the state after f.next units to the host. Once the run's context is
// cancelled (a stop from outside), units still in flight end with faults and may have
// been folded: such a state is no checkpoint, and the run ends with the cancellation.
func (f *Fold[T]) checkpoint() {
	if err := f.ctx.Err(); err != nil {
		f.fail(context.Cause(f.ctx))
		return
	}
	state, err := f.state()
	if errors.Is(err, ErrNoCheckpoint) {
		return // the state cannot be held whole here: no checkpoint, no early end
	}
	if err != nil {
		f.fail(fmt.Errorf("checkpoint after unit %d: encode state: %w", f.next, err))
		return
	}
	done := f.next
	if f.games != nil {
		done = f.games(f.next)
	}
	stop, err := f.b.Done(Checkpoint{Done: done, State: state}, f.sofar)
	switch {
	case err != nil:
		f.fail(fmt.Errorf("checkpoint after %d: %w", f.next, err))
	case stop:
		f.stopped = true
		f.cancel(errStopped)
	}
}

func (f *Fold[T]) fail(err error) {
	f.err = err
	f.cancel(err)
}

// End says how the run ended, given what the scheduler returned: stopped early by the
// host (the tally holds the units up to the stop), failed (a checkpoint could not be
// written, or the scheduler's error), or complete.
func (f *Fold[T]) End(err error) (stopped bool, _ error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.cancel(nil)
	switch {
	case f.err != nil:
		return false, f.err
	case f.stopped:
		return true, nil
	case err != nil:
		return false, err
	case f.next != f.end:
		return false, fmt.Errorf("engine: %d of %d units folded (%d held)", f.next, f.end, len(f.held))
	}
	return false, nil
}

// Folded is the number of units in the tally.
func (f *Fold[T]) Folded() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}
