package pyclass

import "github.com/kothd/kothd/engine/forty"

// InstallTestHarness installs the pyclass harness with the forty game's module, which the
// runner's pyclass tests play (PyConfig.Harness "forty").
func InstallTestHarness(dir string) error {
	h := forty.Descriptor.Harness
	return InstallHarness(dir, h.Module, h.Source)
}
