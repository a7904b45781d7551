package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// runVersion prints the module version (a tag when installed with `go install …@vX`,
// "(devel)" when built from a checkout) and the VCS revision the build info carries.
func runVersion(ctx context.Context, cl *cli, args []string) error {
	if _, err := cl.parse(cl.flags(), args); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(cl.out, "kothd (no build information)")
		return nil
	}
	fmt.Fprintln(cl.out, versionText(bi))
	return nil
}

func versionText(bi *debug.BuildInfo) string {
	s := fmt.Sprintf("kothd %s (%s", bi.Main.Version, bi.Main.Path)
	set := map[string]string{}
	for _, kv := range bi.Settings {
		set[kv.Key] = kv.Value
	}
	if rev := set["vcs.revision"]; rev != "" {
		s += ", revision " + rev[:min(12, len(rev))]
		if t := set["vcs.time"]; t != "" {
			s += " of " + t
		}
		if set["vcs.modified"] == "true" {
			s += ", with local changes"
		}
	}
	return s + ", " + bi.GoVersion + ")"
}
