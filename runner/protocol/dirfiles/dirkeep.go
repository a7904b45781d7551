package dirfiles

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/dirsnap"
)

// KeptLimit bounds the files one dirfiles bot keeps in a checkpoint (engine.DirKeeper):
// beyond it the checkpoint is not taken, rather than taken without them.
const KeptLimit = 4 << 20

// notKept are the paths of a bot's directory a checkpoint does not hold: the protocol's
// files, rewritten before every game and run, and the runner's shims.
func notKept(name string) bool {
	switch name {
	case PlayersFile, FromServer, ToServer:
		return true
	}
	return name == ".kothd" || strings.HasPrefix(name, ".kothd/")
}

// takeBase records bot's directory as it was prepared, before its first run: what Keep
// compares against.
func (p *DirPool) takeBase(bot int) error {
	if p.base[bot] != nil {
		return nil
	}
	b, err := dirsnap.Take(p.bots[bot].Dir, notKept)
	if err != nil {
		return fmt.Errorf("%s: record its directory: %w", p.bots[bot].Name, err)
	}
	p.base[bot] = b
	return nil
}

// Keep returns the files bot keeps in its directory beyond its prepared ones (engine.
// DirKeeper), at most KeptLimit bytes of them (else dirsnap.ErrTooLarge).
func (p *DirPool) Keep(bot int) ([]byte, error) {
	if err := p.takeBase(bot); err != nil {
		return nil, err
	}
	kept, err := dirsnap.Changes(p.bots[bot].Dir, p.base[bot], notKept, KeptLimit)
	if errors.Is(err, dirsnap.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w (over %d MiB): %w", p.bots[bot].Name, err, KeptLimit>>20, engine.ErrNoCheckpoint)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.bots[bot].Name, err)
	}
	return kept, nil
}

// Restore gives bot, before its first run in this pool, the files Keep returned in an
// earlier one.
func (p *DirPool) Restore(bot int, kept []byte) error {
	if err := p.takeBase(bot); err != nil {
		return err
	}
	if err := dirsnap.Apply(p.bots[bot].Dir, kept); err != nil {
		return fmt.Errorf("%s: %w", p.bots[bot].Name, err)
	}
	return nil
}
