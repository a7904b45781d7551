package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kothd/kothd/config"
	"github.com/kothd/kothd/runner/sandbox"
)

// The shipped unit and config work together: deploy/kothd.service and config.yaml as
// docs/deploy.md installs it. These tests read both and check what systemd's sandboxing
// lets the service see and write; TestUnitVerifies has systemd itself read the unit.

// unitService reads the [Service] section of a unit: each key's values in order.
func unitService(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			out[k] = append(out[k], strings.Fields(v)...)
		}
	}
	return out
}

// installedConfig is the repository's config.yaml with the two settings docs/deploy.md
// (and the unit's header) tell a host to change, loaded from /etc/kothd as the unit does.
func installedConfig(t *testing.T) *config.Config {
	t.Helper()
	doc, _ := os.ReadFile("../../docs/deploy.md")
	unit, _ := os.ReadFile("../../deploy/kothd.service")
	b, err := os.ReadFile("../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, set := range [][2]string{{"data_dir: data ", "data_dir: /var/lib/kothd/data "}, {"output_dir: leaderboards ", "output_dir: /srv/kothd "}} {
		line := strings.TrimSpace(set[1])
		if !strings.Contains(string(doc), line) || !strings.Contains(string(unit), line) {
			t.Errorf("docs/deploy.md and the unit's header must both say %q", line)
		}
		if !strings.Contains(s, set[0]) {
			t.Fatalf("config.yaml has no %q", set[0])
		}
		s = strings.Replace(s, set[0], set[1], 1)
	}
	// Loaded from a copy: the paths are absolute already, so where it lies does not matter.
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// under reports whether p is dir or lies inside it.
func under(p, dir string) bool {
	dir = strings.TrimSuffix(strings.TrimPrefix(dir, "-"), "/")
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func underAny(p string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return under(p, d) })
}

// visible says whether the service sees p (read-only at least) under the unit's
// ProtectHome, PrivateTmp and InaccessiblePaths, and why not.
func visible(u map[string][]string, p string) (bool, string) {
	if underAny(p, u["InaccessiblePaths"]) {
		return false, "InaccessiblePaths"
	}
	if underAny(p, []string{"/tmp", "/var/tmp"}) && slices.Contains(u["PrivateTmp"], "yes") {
		return false, "PrivateTmp=yes gives the service a /tmp of its own"
	}
	if underAny(p, []string{"/home", "/root", "/run/user"}) {
		binds := append(slices.Clone(u["BindReadOnlyPaths"]), u["BindPaths"]...)
		switch ph := strings.Join(u["ProtectHome"], ""); ph {
		case "", "no", "false", "read-only":
		case "tmpfs":
			if !underAny(p, binds) {
				return false, "ProtectHome=tmpfs and no BindReadOnlyPaths= shows it"
			}
		default: // yes: mode 000 over the directory, so a bind below cannot be reached
			return false, "ProtectHome=" + ph + " hides it"
		}
	}
	return true, ""
}

// writable says whether the service may write p under its ProtectSystem=.
func writable(u map[string][]string, p string) bool {
	if ok, _ := visible(u, p); !ok {
		return false
	}
	rw := append(slices.Clone(u["ReadWritePaths"]), u["BindPaths"]...)
	for _, d := range u["StateDirectory"] {
		rw = append(rw, "/var/lib/"+d)
	}
	if underAny(p, rw) {
		return true
	}
	switch strings.Join(u["ProtectSystem"], "") {
	case "strict":
		return false
	case "full":
		return !underAny(p, []string{"/usr", "/boot", "/efi", "/etc"})
	case "yes", "true":
		return !underAny(p, []string{"/usr", "/boot", "/efi"})
	}
	return true
}

// absPaths are the absolute paths a command names: its words and those inside a script.
var absPathRE = regexp.MustCompile(`(?:^|[\s"'=])(/[A-Za-z0-9._+/-]+)`)

func absPaths(argv []string) []string {
	var out []string
	for _, a := range argv {
		for _, m := range absPathRE.FindAllStringSubmatch(a, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// Every interpreter and compiler path the shipped config names is visible to the service,
// and data_dir and output_dir are writable: the unit's ProtectHome=yes used to hide the
// config's Python 2 under /root/.pyenv, and output_dir under the state directory was
// /var/lib/private, which no web server can enter.
func TestShippedUnitAndConfigAgree(t *testing.T) {
	u := unitService(t, "../../deploy/kothd.service")
	cfg := installedConfig(t)
	var named []string
	named = append(named, cfg.Python)
	for name, l := range cfg.Languages {
		for _, p := range absPaths(append(slices.Clone(l.Build), l.Run...)) {
			named = append(named, p)
			t.Logf("%s names %s", name, p)
		}
	}
	if !slices.Contains(named, "/root/.pyenv/versions/2.7.18/bin/python2.7") {
		t.Errorf("the config no longer runs pyenv's Python 2; this test expected it (named: %v)", named)
	}
	for _, p := range named {
		if ok, why := visible(u, p); !ok {
			t.Errorf("the config names %s, which the unit hides: %s", p, why)
		}
	}
	for key, p := range map[string]string{"data_dir": cfg.DataDir, "output_dir": cfg.OutputDir} {
		if !writable(u, p) {
			t.Errorf("%s %s is not writable under the unit", key, p)
		}
	}
	// A web server must be able to enter output_dir: not under the dynamic user's
	// /var/lib/private (what StateDirectory= is with DynamicUser=yes).
	if slices.Contains(u["DynamicUser"], "yes") && underAny(cfg.OutputDir, []string{"/var/lib", "/var/cache", "/var/log"}) {
		t.Errorf("output_dir %s lies under the dynamic user's private state, which a web server cannot serve", cfg.OutputDir)
	}
	if !slices.Contains(u["ExecStartPre"], cfg.OutputDir) || !slices.Contains(u["SupplementaryGroups"], "www-data") {
		t.Errorf("the unit does not make output_dir %s for the web server's group: %v", cfg.OutputDir, u["ExecStartPre"])
	}
	// Run as root (a cgroup v1 host), the daemon claims bot uids in the claim file's
	// directory: the unit makes it root's and leaves it writable under ProtectSystem=.
	claims := filepath.Dir(sandbox.UIDClaimFile)
	if !slices.Contains(u["ExecStartPre"], claims) || !writable(u, sandbox.UIDClaimFile) {
		t.Errorf("the unit does not make %s, or a root daemon cannot write it: %v", claims, u["ExecStartPre"])
	}
	// Reload: SIGHUP to the main process; the unit type that waits for kothd's READY=1.
	if strings.Join(u["ExecReload"], " ") != "/bin/kill -HUP $MAINPID" || strings.Join(u["Type"], "") != "notify" {
		t.Errorf("ExecReload %v, Type %v", u["ExecReload"], u["Type"])
	}
	// systemd sets up the mount namespace of every command it starts, ExecStartPre= ones
	// included, and fails the start (226/NAMESPACE) on a ReadWritePaths= entry that does not
	// exist: a directory the unit's ExecStartPre= makes must be marked "-" (may be missing).
	// Without it the shipped unit never started on a fresh Debian 12 (the VM suite).
	for _, rw := range u["ReadWritePaths"] {
		if slices.Contains(u["ExecStartPre"], rw) { // the words of the commands: made there, not marked
			t.Errorf("ReadWritePaths=%s is a directory ExecStartPre= makes: mark it -%s, or the start fails while it does not exist", rw, rw)
		}
	}
	// Hardening that stops bubblewrap (docs/deploy.md's table says how): ProtectHostname=yes
	// was shipped, and the daemon refused to start on Debian 12 (the VM suite).
	for _, key := range []string{"ProtectKernelTunables", "ProtectKernelLogs", "ProtectProc", "ProcSubset",
		"RestrictNamespaces", "SystemCallFilter", "MemoryDenyWriteExecute", "ProtectControlGroups", "ProtectHostname"} {
		if v := strings.Join(u[key], " "); v != "" && v != "no" && v != "false" && v != "default" && v != "all" {
			t.Errorf("%s=%s: it stops bwrap (docs/deploy.md)", key, v)
		}
	}
	// Bots are killed for memory inside the unit's cgroup; that must not stop the service.
	if strings.Join(u["OOMPolicy"], "") != "continue" || strings.Join(u["Delegate"], "") != "yes" {
		t.Errorf("OOMPolicy %v, Delegate %v: want continue and yes", u["OOMPolicy"], u["Delegate"])
	}
	// The model itself: what it must refuse.
	if ok, _ := visible(map[string][]string{"ProtectHome": {"yes"}, "BindReadOnlyPaths": {"/root/.pyenv"}}, "/root/.pyenv/bin/x"); ok {
		t.Error("the model lets ProtectHome=yes show /root")
	}
	if ok, _ := visible(map[string][]string{"ProtectHome": {"tmpfs"}}, "/home/x/python"); ok {
		t.Error("the model lets ProtectHome=tmpfs show /home without a bind")
	}
}

// systemd-analyze verify reads the unit as systemd will, with the built binary in the
// place of /usr/local/bin/kothd; any warning (an unknown key, an unknown Type=) fails.
func TestUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install systemd): the unit is not verified here")
	}
	b, err := os.ReadFile("../../deploy/kothd.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "kothd.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/kothd", kothdBin(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", unit).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
