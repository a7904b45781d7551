package sandbox

import (
	"strings"
	"testing"
)

// userSiteBot reports whether its user site's usercustomize ran at its start, then
// writes one (the bot's directory is its HOME).
const userSiteBot = `import os, sys, builtins
print(sys.path, hasattr(builtins, "MARK"))
d = os.path.expanduser("~/.local/lib/python%d.%d/site-packages" % sys.version_info[:2])
os.makedirs(d, exist_ok=True)
open(os.path.join(d, "usercustomize.py"), "w").write("import builtins\nbuiltins.MARK = 1\n")
`

// A bot that makes its user site directory has it read at every later start, as a
// plain launch reads it: the server, started before it, would never have read it.
func TestForkServerUserSite(t *testing.T) {
	sb := NeedBwrap(t)
	f := forkForms["py3-bash"]
	forked, plain, fdir, pdir := formPair(t, sb, f, userSiteBot)
	for i := range 3 {
		fr, fout := decide(t, forked, fdir, f, "")
		pr, pout := decide(t, plain, pdir, f, "")
		fout = strings.ReplaceAll(fout, fdir, pdir)
		if fout != pout || fr.Exit != pr.Exit || fr.Stderr != pr.Stderr {
			t.Fatalf("decision %d: forked %q %q\nplain  %q %q", i, fout, fr.Stderr, pout, pr.Stderr)
		}
		if i == 0 && !fr.Forked {
			t.Fatalf("decision %d not forked", i)
		}
	}
}
