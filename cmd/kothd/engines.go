package main

import (
	"context"
	"fmt"

	"kothd/config"
	"kothd/cron"
)

// engineProtocols says which protocol each engine's bots speak. The engine registry does
// not carry it yet; an engine missing here accepts any protocol.
var engineProtocols = map[string]string{
	"forty": "pyclass", "whiteelephant": "pyclass", "ruins": "pyclass",
	"bankheist": "argv", "mafia": "dirfiles",
}

// knownEngines is what the config is checked against: the engines this build registers.
func knownEngines() config.Known {
	k := config.Known{Engines: map[string]string{}}
	for _, e := range cron.Engines() {
		k.Engines[e] = engineProtocols[e]
	}
	return k
}

func runEngines(ctx context.Context, cl *cli, args []string) error {
	if _, err := cl.parse(cl.flags(), args); err != nil {
		return err
	}
	k := knownEngines()
	for _, e := range cron.Engines() {
		fmt.Fprintf(cl.out, "%-14s %s\n", e, k.Engines[e])
	}
	return nil
}
