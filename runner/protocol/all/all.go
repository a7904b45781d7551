// Package all lists the protocols this build speaks, keyed by the name a game's descriptor
// gives its protocol (engine.Game.Protocol). Adding a protocol is one line here.
package all

import (
	"fmt"

	"github.com/kothd/kothd/engine"
	"github.com/kothd/kothd/runner/protocol"
	"github.com/kothd/kothd/runner/protocol/argv"
	"github.com/kothd/kothd/runner/protocol/dirfiles"
	"github.com/kothd/kothd/runner/protocol/pyclass"
	"github.com/kothd/kothd/runner/protocol/stdio"
)

// protocols is the explicit list: no protocol registers itself.
var protocols = map[engine.Protocol]protocol.Protocol{
	engine.PyClass:  pyclass.Protocol{},
	engine.Argv:     argv.Protocol{},
	engine.DirFiles: dirfiles.Protocol{},
	engine.Stdio:    stdio.Protocol{},
}

// Lookup returns the protocol a game plays by its descriptor's name.
func Lookup(name engine.Protocol) (protocol.Protocol, error) {
	p, ok := protocols[name]
	if !ok {
		return nil, fmt.Errorf("no protocol %q in this build", name)
	}
	return p, nil
}
