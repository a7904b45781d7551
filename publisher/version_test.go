package publisher

import (
	"runtime/debug"
	"testing"
)

// The board's version: a tag, else the revision (marked dirty), else "devel".
func TestBuildStampShort(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "5930d07252bbdeadbeef"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "5930d07252bb+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev[:1]}, "5930d07252bb"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	} {
		if got := BuildOf(&tc.bi).Short(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.bi.Main, got, tc.want)
		}
	}
}
