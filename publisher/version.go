package publisher

import "runtime/debug"

// BuildStamp is what a binary's build information says about where it came from: the board
// stamps it (Version) and `kothd version` prints it in full.
type BuildStamp struct {
	Module   string // module version: a tag when installed with `go install …@vX`, "(devel)" from a checkout
	Path     string // module path
	Go       string // Go version it was built with
	Revision string // VCS revision, cut to 12 characters; "" when the build recorded none
	Time     string // VCS commit time
	Modified bool   // built with uncommitted changes
}

// BuildOf reads a binary's build information.
func BuildOf(bi *debug.BuildInfo) BuildStamp {
	b := BuildStamp{Module: bi.Main.Version, Path: bi.Main.Path, Go: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Version is kothd's version as the board stamps it (Short of this binary's build).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return BuildOf(bi).Short()
}

// Short is the module version, else the VCS revision (with "+dirty" for uncommitted
// changes), else "devel".
func (b BuildStamp) Short() string {
	switch {
	case b.Module != "" && b.Module != "(devel)":
		return b.Module
	case b.Revision == "":
		return "devel"
	case b.Modified:
		return b.Revision + "+dirty"
	}
	return b.Revision
}
