package cron

import (
	"context"
	"sync"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/sandbox"
)

// The ledger's place between an engine and the argv and dirfiles protocols: every decision
// passes on to the protocol, whose own accounting (benching, the bench's counts) goes on as
// before, and is counted by the ledger under its game (engine.At).

// ledgerLaunch counts the argv protocol's decisions.
type ledgerLaunch struct {
	engine.Launcher
	l *ledger
}

func (x *ledgerLaunch) Launch(ctx context.Context, unit int, at engine.At, bot int, args []string, input any, check func(string) *engine.Fault) (string, *engine.Fault) {
	ans, f := x.Launcher.Launch(ctx, unit, at, bot, args, input, check)
	x.l.decided(at, bot, f, input)
	return ans, f
}

// ledgerFiles counts the dirfiles protocol's decisions, described as its pool describes
// them (the bot, where, and the from_server it read), and passes the bots' kept files on
// (engine.DirKeeper) when the protocol keeps them.
type ledgerFiles struct {
	engine.DirBots
	l    *ledger
	mu   sync.Mutex
	last []string // per bot: the from_server last delivered
}

func (x *ledgerFiles) Setup(game, bot int, players []string) error {
	x.note(bot, "")
	return x.DirBots.Setup(game, bot, players)
}

func (x *ledgerFiles) Deliver(bot int, text string) error {
	x.note(bot, text)
	return x.DirBots.Deliver(bot, text)
}

func (x *ledgerFiles) note(bot int, text string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if bot >= 0 && bot < len(x.last) {
		x.last[bot] = text
	}
}

func (x *ledgerFiles) Run(ctx context.Context, at engine.At, bot int, collect bool) (string, *engine.Fault) {
	out, f := x.DirBots.Run(ctx, at, bot, collect)
	var input map[string]any
	if f != nil && bot >= 0 && bot < len(x.last) {
		x.mu.Lock()
		input = map[string]any{"bot": x.l.names[bot], "game": at.Game, "turn": at.Turn, "from_server": sandbox.Truncate(x.last[bot], 2000)}
		x.mu.Unlock()
	}
	x.l.decided(at, bot, f, input)
	return out, f
}

// Keep and Restore pass the bots' kept files on; a protocol that keeps none has none.
func (x *ledgerFiles) Keep(bot int) ([]byte, error) {
	if k, ok := x.DirBots.(engine.DirKeeper); ok {
		return k.Keep(bot)
	}
	return nil, nil
}

func (x *ledgerFiles) Restore(bot int, kept []byte) error {
	if k, ok := x.DirBots.(engine.DirKeeper); ok && len(kept) > 0 {
		return k.Restore(bot, kept)
	}
	return nil
}
