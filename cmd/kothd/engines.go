package main

import (
	"context"
	"fmt"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/engine/all"
)

// knownEngines is what the config is checked against: the games this build registers,
// with their protocols, options types, and what adaptive length needs (batches, a budget).
func knownEngines() config.Known {
	k := config.Known{Engines: map[string]config.Engine{}}
	reg := all.Games()
	for _, name := range reg.Names() {
		g, err := reg.Lookup(name)
		if err != nil {
			continue
		}
		k.Engines[name] = config.Engine{Protocol: string(g.Protocol), Options: g.Options, Batched: g.Batched, Games: g.Games}
	}
	return k
}

func runEngines(ctx context.Context, cl *cli, args []string) error {
	if _, err := cl.parse(cl.flags(), args); err != nil {
		return err
	}
	reg := all.Games()
	for _, name := range reg.Names() {
		g, err := reg.Lookup(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(cl.out, "%-14s %s\n", name, g.Protocol)
	}
	return nil
}
