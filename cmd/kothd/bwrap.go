package main

import (
	"errors"
	"log/slog"

	"kothd/runner"
)

// newBwrap is replaced by the real bubblewrap sandbox.
func newBwrap(log *slog.Logger) (runner.Sandbox, error) {
	return nil, errors.New("the bwrap sandbox is not available in this build; set `sandbox: none` to run bots unisolated")
}
