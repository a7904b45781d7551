package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/kothd/kothd/publisher"
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
	b := publisher.BuildOf(bi)
	s := fmt.Sprintf("kothd %s (%s", b.Module, b.Path)
	if b.Revision != "" {
		s += ", revision " + b.Revision
		if b.Time != "" {
			s += " of " + b.Time
		}
		if b.Modified {
			s += ", with local changes"
		}
	}
	return s + ", " + b.Go + ")"
}
