package all_test

import (
	"testing"

	"github.com/kothd/kothd/engine"
	games "github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/runner/protocol/all"
)

// Every game of the build plays a protocol of the build: the cycle looks each up here,
// and a game whose protocol is missing could not be prepared or played.
func TestEveryGameHasItsProtocol(t *testing.T) {
	reg := games.Games()
	for _, name := range reg.Names() {
		g, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := all.Lookup(g.Protocol); err != nil {
			t.Errorf("game %s: %v", name, err)
		}
	}
}

// A protocol name the build does not know is an error that names it, not a nil protocol.
func TestUnknownProtocol(t *testing.T) {
	p, err := all.Lookup(engine.Protocol("carrier-pigeon"))
	if err == nil || p != nil {
		t.Fatalf("Lookup(carrier-pigeon) = %v, %v; want an error", p, err)
	}
}
