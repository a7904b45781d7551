package all_test

import (
	"testing"

	"github.com/kothd/kothd/engine/all"
	"github.com/kothd/kothd/engine/toy"
)

// A sixth game of an existing protocol is one folder (engine/toy) and one registration
// line; it then passes the conformance suite like the five.
func TestToySixthGame(t *testing.T) {
	reg := all.Games()
	if err := reg.Register(toy.Descriptor); err != nil { // the one line engine/all would get
		t.Fatal(err)
	}
	g, err := reg.Lookup("toy")
	if err != nil {
		t.Fatal(err)
	}
	conform(t, g)
	if err := reg.Register(toy.Descriptor); err == nil {
		t.Error("a second game named toy was registered")
	}
}
