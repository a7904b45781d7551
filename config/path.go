package config

import "path/filepath"

// Resolve makes a path the config names (a referee's directory) absolute: relative to the
// config file's directory, as data_dir and output_dir are, or to the working directory for
// a config not read from a file.
func (c *Config) Resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	base := "."
	if c.file != "" {
		base = filepath.Dir(c.file)
	}
	abs, err := filepath.Abs(filepath.Join(base, p))
	if err != nil {
		return filepath.Join(base, p)
	}
	return abs
}
