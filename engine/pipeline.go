package engine

import "context"

// Pipeliner is an Exchanger that takes a batch while earlier ones are still being answered.
// Lockstep uses it to keep the bots busy: while they answer one group of games' calls, it
// steps another group's games and queues their calls behind the first batch, so no bot waits
// for the daemon between ticks and the daemon's stepping overlaps the bots' work.
type Pipeliner interface {
	Exchanger
	// Send queues calls behind every batch sent before it (each bot receives its calls
	// batch by batch, in the order they were sent) and returns at once; receive waits for
	// the replies, one per call in the same order. calls must stay untouched until receive
	// returns. Send is called from one goroutine at a time.
	Send(ctx context.Context, calls []Call) (receive func() []Reply)
}

// Send sends calls over ex: queued behind earlier batches if ex is a Pipeliner, else
// answered at once (receive then returns the replies already in hand).
func Send(ctx context.Context, ex Exchanger, calls []Call) (receive func() []Reply) {
	if p, ok := ex.(Pipeliner); ok {
		return p.Send(ctx, calls)
	}
	replies := ex.Exchange(ctx, calls)
	return func() []Reply { return replies }
}
