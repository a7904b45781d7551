// Package all names the games this build can play: the one list a new game is added to
// (one line, beside its folder engine/<game>). Nothing else in kothd names a game.
package all

import (
	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/engine/bankheist"
	"github.com/kothd/kothd/engine/forty"
	"github.com/kothd/kothd/engine/mafia"
	"github.com/kothd/kothd/engine/referee"
	"github.com/kothd/kothd/engine/ruins"
	"github.com/kothd/kothd/engine/whiteelephant"
)

// Games returns a fresh registry of every game of this build.
func Games() *engine.Registry {
	r := engine.NewRegistry()
	r.MustRegister(bankheist.Descriptor)
	r.MustRegister(forty.Descriptor)
	r.MustRegister(mafia.Descriptor)
	r.MustRegister(referee.Descriptor)
	r.MustRegister(referee.ArgvDescriptor)
	r.MustRegister(ruins.Descriptor)
	r.MustRegister(whiteelephant.Descriptor)
	return r
}
