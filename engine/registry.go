package engine

import (
	"fmt"
	"sort"
)

// Registry holds the games a build can play, by name. engine/all fills the production one;
// tests build their own (a fake game, a toy sixth game).
type Registry struct {
	games map[string]*Game
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{games: map[string]*Game{}} }

// Register adds a game. A second game of the same name, or a descriptor that is not
// complete, is refused.
func (r *Registry) Register(g *Game) error {
	if err := g.Check(); err != nil {
		return err
	}
	if _, dup := r.games[g.Name]; dup {
		return fmt.Errorf("game %q registered twice", g.Name)
	}
	r.games[g.Name] = g
	return nil
}

// MustRegister is Register for static lists, where a failure is a programming error.
func (r *Registry) MustRegister(g *Game) {
	if err := r.Register(g); err != nil {
		panic(err)
	}
}

// Lookup returns the game of a name, or an error saying it is not in this build.
func (r *Registry) Lookup(name string) (*Game, error) {
	if g, ok := r.games[name]; ok {
		return g, nil
	}
	return nil, fmt.Errorf("engine %q not available", name)
}

// Names lists the games in order.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.games))
	for k := range r.games {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
