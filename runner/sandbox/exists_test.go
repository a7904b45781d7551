package sandbox

import "os"

// exists reports whether a path exists on the host.
func exists(p string) bool { _, err := os.Stat(p); return err == nil }
