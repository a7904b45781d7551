package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// SandboxDir is where a bot's own directory appears inside the bwrap sandbox: its working
// directory and its HOME. Argv entries naming the directory by its host path are rewritten
// to it.
const SandboxDir = "/bot"

// Bwrap runs every bot process (and every build) in a bubblewrap sandbox:
//
//   - new user, PID, network, IPC, UTS and cgroup namespaces: no network at all (not even
//     loopback to the host), no view of the host's processes, a fresh /proc;
//   - a new root holding only read-only binds of what interpreters and compilers need
//     (/usr and its symlinks, a few files of /etc, the pyenv interpreters), a private /dev,
//     an empty read-only /tmp, and the bot's own directory at SandboxDir, writable;
//     the data directory, the database, config.yaml, other bots, /root and /work are not
//     there;
//   - the scrubbed environment of BaseEnv (no daemon variable, no token);
//   - the limits of ProcSpec.Limits, applied inside by prlimit(1) per process (see
//     limits.go) and to the whole sandbox by a cgroup of its own (cgroup.go): memory,
//     tasks, one CPU's bandwidth, CPU time;
//   - --die-with-parent and a PID namespace: when the runner kills bwrap, every process the
//     bot started dies with it, whatever session or process group it moved to.
//
// When the daemon runs as root, bots do not: see rootChain.
type Bwrap struct {
	// Path is the bwrap binary.
	Path string
	// ReadOnly lists the host paths bound read-only at the same place inside. Entries that
	// are symbolic links on the host (/bin → usr/bin) are recreated as links.
	ReadOnly []string
	// UID and GID are the unprivileged host identity bots run as when the daemon is root.
	UID, GID int

	root bool // the daemon is root: bots are switched to UID/GID (rootChain)
	// util-linux tools run inside the sandbox before the bot (absolute paths under /usr).
	setpriv, unshare, prlimitPath string
	// cgroups makes each sandbox's cgroup (cgroup.go); nil when the host opted out.
	cgroups *cgroupTree
}

// DefaultReadOnly is what every bot may read. Globs are expanded when the sandbox is made;
// paths missing on a host are skipped.
var DefaultReadOnly = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/localtime", "/etc/java-*", "/etc/python*",
	// Interpreters a language's run command may name (Python 2.7 lives here on these
	// machines); the rest of /root (pyenv's shims, the host's files) stays hidden.
	"/root/.pyenv/versions",
}

// NewBwrap finds bwrap and the util-linux tools the sandbox uses. It does not try them:
// NewSandbox does, once.
func NewBwrap() (*Bwrap, error) {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("bubblewrap (bwrap) not found; install the bubblewrap package: %w", err)
	}
	b := &Bwrap{Path: path, UID: 65534, GID: 65534, root: os.Geteuid() == 0}
	for _, pattern := range DefaultReadOnly {
		matches, _ := filepath.Glob(pattern)
		b.ReadOnly = append(b.ReadOnly, matches...)
	}
	tools := map[string]*string{"prlimit": &b.prlimitPath}
	if b.root {
		tools["setpriv"], tools["unshare"] = &b.setpriv, &b.unshare
	}
	for tool, dst := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			return nil, fmt.Errorf("sandbox tool %s (util-linux) not found: %w", tool, err)
		}
		if !b.visible(p) {
			return nil, fmt.Errorf("sandbox tool %s is outside the paths bots can see", p)
		}
		*dst = p
	}
	return b, nil
}

// Name implements Sandbox.
func (b *Bwrap) Name() string { return "bwrap" }

// statusPrefix names the files bwrap reports its command's exit to (see sandboxFailed).
const statusPrefix = "kothd-bwrap-status-"

// Command implements Sandbox. The returned command leads its own process group; killing
// that group kills bwrap, and with it the whole sandbox.
func (b *Bwrap) Command(ctx context.Context, spec ProcSpec) (*exec.Cmd, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("sandbox bwrap: empty command")
	}
	dir, err := filepath.Abs(spec.Dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox bwrap: bot directory: %w", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("sandbox bwrap: bot directory %s is not a directory (%v)", dir, err)
	}
	if b.root {
		if err := chownTree(dir, b.UID, b.GID); err != nil {
			return nil, fmt.Errorf("sandbox bwrap: hand %s to uid %d: %w", dir, b.UID, err)
		}
	}
	// bwrap writes {"exit-code": n} to fd 3 once its command has run and ended; a file
	// that lacks it after a normal exit means the sandbox itself failed (sandboxFailed).
	status, err := unlinkedTemp(statusPrefix, nil)
	if err != nil {
		return nil, fmt.Errorf("sandbox bwrap: status file: %w", err)
	}
	// bwrap's options go through fd 4 rather than the command line, so that the bot,
	// which can read /proc/1/cmdline, learns neither the host path of its directory nor
	// the sandbox's layout.
	options, command := b.args(dir, spec)
	var optData []byte
	for _, o := range options {
		optData = append(append(optData, o...), 0)
	}
	optFile, err := unlinkedTemp("kothd-bwrap-args-", optData)
	if err != nil {
		status.Close()
		return nil, fmt.Errorf("sandbox bwrap: argument file: %w", err)
	}
	sealInheritedFDs()
	cmd := exec.Command(b.Path, append([]string{"--args", "4", "--"}, command...)...)
	cmd.Dir = "/"
	cmd.Env = append(BaseEnv(mountPoint(spec)), spec.Env...)
	if !spec.ReadOnlyDir {
		// There is no /tmp to write to (see args): temporary files go to the bot's own
		// directory, where the directory allowance counts them.
		cmd.Env = append(cmd.Env, "TMPDIR="+mountPoint(spec))
	}
	cmd.ExtraFiles = []*os.File{status, optFile} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if b.cgroups != nil {
		cg, err := b.cgroups.newSandbox(spec.Limits.withDefaults(), spec.Share)
		if err == nil {
			if err = cg.enter(cmd); err != nil {
				cg.release()
			}
		}
		if err != nil {
			status.Close()
			optFile.Close()
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
		attachCgroup(cmd, cg)
	}
	return cmd, nil
}

// sealInheritedFDs marks every descriptor above stderr close-on-exec. Go opens its own
// descriptors that way, but the daemon may have inherited open ones from whatever started
// it (a shell, a supervisor) or been given some by C code, and exec hands every such
// descriptor to every child: bwrap does not close them, so a bot would hold them open.
func sealInheritedFDs() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC)
		}
	}
}

// unlinkedTemp returns a temporary file holding data, positioned at its start, whose
// name is already gone. It closes when the *os.File is garbage (the exec.Cmd holding it).
func unlinkedTemp(prefix string, data []byte) (*os.File, error) {
	f, err := os.CreateTemp("", prefix+"*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	if len(data) > 0 {
		if _, err := f.Write(data); err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// args builds bwrap's options and the command it runs for one process.
func (b *Bwrap) args(dir string, spec ProcSpec) (options, command []string) {
	a := []string{"--die-with-parent", "--new-session", "--json-status-fd", "3"}
	if b.root {
		// Real root: bwrap needs no user namespace to build the sandbox, and keeps just
		// enough privilege for setpriv to switch to the bots' identity (rootChain).
		a = append(a, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
			"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
	} else {
		a = append(a, "--unshare-all")
	}
	a = append(a, "--hostname", "sandbox")

	lim := spec.Limits.withDefaults()
	// No tmpfs at /tmp: a tmpfs bounds bytes but not inodes (bwrap cannot pass nr_inodes),
	// and 400,000 empty files there held 330 MB of kernel memory. /tmp is an empty,
	// read-only directory; TMPDIR names the bot's own directory when it is writable.
	a = append(a,
		"--proc", "/proc",
		"--dev", "/dev",
		"--dir", "/tmp")
	ro := b.ReadOnly
	// A prefix holding the bot's directory (and so the data directory) is never bound:
	// the command then fails inside, visibly.
	if extra := b.interpreterPrefix(spec.Argv[0]); extra != "" && dir != extra && !strings.HasPrefix(dir, extra+"/") {
		ro = append(slices.Clone(ro), extra)
	}
	// bwrap creates missing parents of a mount point 0700 and owned by the sandbox's
	// root: make them traversable first, or the unprivileged bot could not reach
	// /etc/alternatives or /root/.pyenv/versions.
	mount := mountPoint(spec)
	for _, p := range parents(append(slices.Clone(ro), mount)) {
		a = append(a, "--perms", "0755", "--dir", p)
	}
	for _, p := range ro {
		if target, err := os.Readlink(p); err == nil {
			a = append(a, "--symlink", target, p)
		} else {
			a = append(a, "--ro-bind", p, p)
		}
	}
	a = append(a,
		bindFlag(spec), dir, mount,
		// The root and /dev are tmpfs the bot could otherwise fill without bound.
		"--remount-ro", "/dev",
		"--remount-ro", "/",
		"--chdir", mount)
	var c []string
	if b.root {
		c = append(c, b.rootChain()...)
	}
	c = append(c, b.prlimit(lim)...)
	for _, arg := range spec.Argv {
		c = append(c, insidePath(arg, dir, mount))
	}
	return a, c
}

// rootChain is how a root daemon's bots end up unprivileged. RLIMIT_NPROC, the fork-bomb
// limit, is never enforced for host uid 0, and bwrap (not setuid) maps the sandbox's user
// to its own uid, so bwrap alone would run bots as root. Instead bwrap keeps only
// CAP_SETUID/CAP_SETGID, and setpriv switches to UID/GID, drops every capability for good
// and sets no_new_privs. unshare then gives the sandbox its own user namespace: the kernel
// counts RLIMIT_NPROC per (user namespace, uid), so without it every sandbox running as
// UID would share one process count and one bot's fork bomb would starve the others.
// prlimit must come after unshare: the new namespace takes its creator's (generous)
// limit as the ceiling for the whole UID, and only the bot's processes get the small one.
//
// Bind sources are resolved by bwrap as root, so the data directory and /root need not be
// readable by UID; the bot's directory is handed to UID instead (chownTree).
func (b *Bwrap) rootChain() []string {
	uid, gid := strconv.Itoa(b.UID), strconv.Itoa(b.GID)
	return []string{
		b.setpriv, "--reuid=" + uid, "--regid=" + gid, "--clear-groups",
		"--bounding-set=-all", "--inh-caps=-all", "--nnp", "--",
		b.unshare, "--user", "--map-current-user", "--",
	}
}

// visible reports whether a host path lies under something bound into every sandbox.
func (b *Bwrap) visible(p string) bool {
	for _, m := range b.ReadOnly {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}

// interpreterPrefix returns the installation prefix of an interpreter named by absolute
// path outside the default binds (e.g. /opt/python3.12/bin/python3 → /opt/python3.12),
// so that a language's run command works without listing its prefix; "" when none is
// needed. A prefix of fewer than two levels (/opt, /root) is refused: the command then
// fails inside, visibly, instead of exposing it.
func (b *Bwrap) interpreterPrefix(argv0 string) string {
	if !filepath.IsAbs(argv0) || b.visible(argv0) {
		return ""
	}
	prefix := filepath.Dir(filepath.Clean(argv0))
	if filepath.Base(prefix) == "bin" {
		prefix = filepath.Dir(prefix)
	}
	if strings.Count(prefix, "/") < 2 {
		return ""
	}
	return prefix
}

// parents lists, shortest first and once each, the strict ancestors of the given absolute
// paths (not "/").
func parents(paths []string) []string {
	var out []string
	for _, p := range paths {
		for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(x, y string) int { return strings.Count(x, "/") - strings.Count(y, "/") })
	return out
}

// insidePath rewrites an argument naming the bot's directory by its host path.
func insidePath(arg, dir, mount string) string {
	if arg == dir {
		return mount
	}
	if rest, ok := strings.CutPrefix(arg, dir+"/"); ok {
		return mount + "/" + rest
	}
	return arg
}

// bindFlag binds the bot's directory writable, or read-only when the spec asks.
func bindFlag(spec ProcSpec) string {
	if spec.ReadOnlyDir {
		return "--ro-bind"
	}
	return "--bind"
}

// mountPoint is where the bot's directory appears inside: spec.Mount when it is a clean
// absolute path outside the system's directories, else SandboxDir.
func mountPoint(spec ProcSpec) string {
	m := spec.Mount
	if m == "" || !filepath.IsAbs(m) || filepath.Clean(m) != m || m == "/" {
		return SandboxDir
	}
	for _, sys := range []string{"/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc", "/proc", "/dev", "/tmp", "/root"} {
		if m == sys || strings.HasPrefix(m, sys+"/") {
			return SandboxDir
		}
	}
	return m
}

// sandboxFailed reports whether a command made by Bwrap ended without its program having
// run: bwrap could not build the sandbox (a failed mount, no namespace left, a process
// limit of the host) or could not start the first tool. That is the host's fault, not the
// bot's. The bot cannot forge it: bwrap's status file is not inherited by the sandbox,
// and a command that ran always has its exit code reported there. A process killed by a
// signal (the runner's kill) is not a sandbox failure.
func sandboxFailed(cmd *exec.Cmd, err error) bool {
	if cmd == nil || len(cmd.ExtraFiles) == 0 || cmd.ExtraFiles[0] == nil {
		return false
	}
	status := cmd.ExtraFiles[0]
	if !strings.HasPrefix(filepath.Base(status.Name()), statusPrefix) {
		return false
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Exited() {
		return false
	}
	report, _ := io.ReadAll(io.NewSectionReader(status, 0, 4096))
	return !bytes.Contains(report, []byte(`"exit-code"`))
}
