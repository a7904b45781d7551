package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
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
//     loopback to the host), no view of the host's processes, a fresh /proc whose
//     machine-wide counters are unreadable or constant (maskedProc, fakeProcs);
//   - a new root holding only read-only binds of what interpreters and compilers need
//     (/usr without /usr/local, its symlinks, a few files of /etc), the installation
//     prefix of an interpreter or toolchain the command names outside those
//     (/root/.pyenv/versions/2.7.18, /usr/local/go; see namedPrefixes), a private /dev
//     without ptys, an empty read-only /tmp, and the bot's own directory at SandboxDir,
//     writable; the data directory, the database, config.yaml, other bots, /root and
//     /work are not there;
//   - a seccomp filter (seccomp.go) that denies the system calls through which two
//     sandboxes could share state (file locks, the page cache, keyrings, other
//     processes, new user namespaces), and, when the daemon is root, a host uid of the
//     sandbox's own (uidpool.go);
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
	// UID and GID are the unprivileged host identity bots run as when the daemon is root
	// but cannot give each sandbox a uid of its own (uids nil).
	UID, GID int

	root bool // the daemon is root: bots are switched to a pool uid, or UID/GID (rootChain)
	// uids gives each bot directory's sandboxes a host uid of their own (root daemon).
	uids *uidPool
	// seccomp is the bots' filter program, launcherSeccomp the launcher's (seccomp.go);
	// nil on an architecture without a system call table.
	seccomp, launcherSeccomp []byte
	// sysinfo puts every sandbox under the helper's filter, whose sysinfo calls the daemon
	// answers with constants (sysinfo.go, notifyexec.go); sysinfoErr says why not when
	// the host cannot.
	sysinfo    bool
	sysinfoErr error
	// hidden are the directories of hiddenPaths this host has under ReadOnly.
	hidden []string
	// masked are the files of maskedProc this host has, maskedDirs the directories of
	// maskedProcDirs; fakes are the constant copies of fakeProcs (procfake.go).
	masked, maskedDirs []string
	fakes              []*fakeProc
	// util-linux tools run inside the sandbox before the bot (absolute paths under /usr).
	setpriv, prlimitPath string
	// cgroups makes each sandbox's cgroup (cgroup.go); nil when the host opted out.
	cgroups *cgroupTree
	// uidClaimErr says why uids cannot be claimed host-wide (uidpool.go); nil when they are.
	uidClaimErr error
	// botfs holds bot directories on filesystems of their own (botfs.go); nil when the
	// host cannot.
	botfs *botfsState
}

// DefaultReadOnly is what every bot may read. Globs are expanded when the sandbox is made;
// paths missing on a host are skipped.
var DefaultReadOnly = []string{
	// /usr but /usr/local (hiddenPaths): what the host installed by hand there is not for
	// bots, except the prefix of a toolchain a command names (/usr/local/go).
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/localtime", "/etc/java-*", "/etc/python*",
}

// maskedProc are files of /proc that count what every process of the machine does (global
// counters, not per process or per namespace); each is a channel between sandboxes with a
// precise tally (a bot opening 100 files moves file-nr by 100, starting 37 threads moves
// loadavg's count by 37, opening 37 ptys moved pty/nr by 37, a sender's CPU time moves
// uptime's idle column) and none is needed by the interpreters and compilers bots use.
// Each is unreadable (EACCES): /dev/null is bound over it, and bwrap's binds do not allow
// devices. maskedProcDirs are directories of such counters whose files differ between
// hosts (one per disk, per interrupt, per filesystem type): each is hidden under an empty
// read-only tmpfs. The files runtimes do parse (stat, meminfo, cpuinfo) are replaced by
// constant copies instead (fakeProcs in procfake.go). Paths a host lacks are skipped.
//
// The list comes from going through the /proc of a 6.18 kernel file by file, read as a bot
// reads it: what is per process (/proc/<pid>), per namespace (sysvipc, most of net and
// sys/net) or static (version, filesystems, devices, most of sys: settings) stays. /proc/net
// cannot be masked this way: it is a link to /proc/self/net, each process's own directory,
// and a bind there covers one process only (bwrap refuses it). Its global fields (sockstat's
// TCP alloc and mem, protocols' memory column, softnet_stat, stat/rt_cache) move only with
// IPv4 and IPv6 sockets: see docs/trust.md.
var maskedProc = []string{
	// Load, locks, keys, memory, disks, interrupts, the scheduler, pressure.
	"/proc/loadavg", "/proc/locks", "/proc/key-users", "/proc/keys", "/proc/vmstat", "/proc/zoneinfo",
	"/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/diskstats", "/proc/interrupts", "/proc/softirqs",
	"/proc/schedstat", "/proc/timer_list", "/proc/sched_debug", "/proc/kallsyms",
	// uptime's second column is the machine's idle CPU time; swaps' Used column; cgroups'
	// num_cgroups (a sandbox's cgroup comes and goes with it); crypto's and modules'
	// reference counts (a socket of a modular protocol holds one); md resync progress;
	// latency, lock and allocation statistics (most are root's only; masked anyway).
	"/proc/uptime", "/proc/swaps", "/proc/cgroups", "/proc/crypto", "/proc/modules", "/proc/mdstat",
	"/proc/latency_stats", "/proc/lock_stat", "/proc/slabinfo", "/proc/vmallocinfo", "/proc/allocinfo",
	// sysctl counters: open files, inodes, dentries, aio, ptys, hung tasks, entropy, taint.
	"/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/fs/inode-state", "/proc/sys/fs/dentry-state",
	"/proc/sys/fs/aio-nr", "/proc/sys/kernel/pty/nr", "/proc/sys/kernel/hung_task_detect_count",
	"/proc/sys/kernel/random/entropy_avail", "/proc/sys/kernel/random/boot_id",
	"/proc/sys/kernel/ns_last_pid", "/proc/sys/kernel/tainted",
}

// filter is the seccomp program of spec's sandbox: the launcher's or the bots'.
func (b *Bwrap) filter(spec ProcSpec) []byte {
	if spec.Launcher {
		return b.launcherSeccomp
	}
	return b.seccomp
}

// maskedProcDirs are directories of /proc holding global counters under names that vary by
// host: pressure stall information (cpu, io, memory, irq); per-filesystem statistics (ext4's
// free-block groups and extent cache, jbd2's transactions, xfs's and nfsd's counters);
// per-interrupt counts (irq/<n>/spurious); ZFS's kstats (spl); the disk quota cache's
// statistics (sys/fs/quota).
var maskedProcDirs = []string{"/proc/pressure", "/proc/fs", "/proc/irq", "/proc/spl", "/proc/sys/fs/quota"}

// hiddenPaths are directories under DefaultReadOnly that bots do not see: each is an
// empty read-only tmpfs in the sandbox, under which only the prefixes a command names are
// bound (namedRoots). One bind of /usr and one tmpfs over /usr/local, rather than a bind
// of each of /usr's other entries, because every mount bwrap makes costs a reading of the
// mount table, whose length is the host's mounts and the sandbox's so far: ten binds were
// eight readings more per sandbox (docs/benchmarks.md).
var hiddenPaths = []string{"/usr/local"}

// namedRoots are where an interpreter or toolchain prefix is bound only for a command that
// names it: one directory below the root is one prefix (/root/.pyenv/versions/2.7.18,
// /usr/local/go). The other pyenv versions, pyenv's shims and the rest of /root, and the
// rest of /usr/local stay hidden.
var namedRoots = []string{"/root/.pyenv/versions", "/usr/local"}

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
	for _, p := range hiddenPaths {
		// A symbolic link there could not have a tmpfs over it; it shows only its target,
		// which is not bound.
		if st, err := os.Lstat(p); err == nil && st.IsDir() && under(b.ReadOnly, p) {
			b.hidden = append(b.hidden, p)
		}
	}
	for _, p := range maskedProc {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			b.masked = append(b.masked, p)
		}
	}
	for _, p := range maskedProcDirs {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			b.maskedDirs = append(b.maskedDirs, p)
		}
	}
	b.fakes = makeFakeProcs()
	tools := map[string]*string{"prlimit": &b.prlimitPath}
	if b.root {
		tools["setpriv"] = &b.setpriv
		if mappedRange(botUIDs.first, botUIDs.count) {
			var claims *os.File
			claims, b.uidClaimErr = openClaims(UIDClaimFile)
			b.uids = newUIDPool(botUIDs.first, botUIDs.count, claims)
		}
	}
	if b.seccomp, err = botSeccomp(); err == nil {
		b.launcherSeccomp, err = launcherSeccomp()
	}
	if err != nil && !errors.Is(err, errSeccompArch) {
		return nil, err
	}
	if b.sysinfoErr = b.sysinfoUsable(); b.sysinfoErr == nil {
		b.sysinfo = true
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
func (b *Bwrap) Command(ctx context.Context, spec ProcSpec) (*Process, error) {
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
	uid, gid := b.UID, b.GID
	if b.root && b.uids != nil {
		if uid, err = b.uids.acquire(dir); err != nil {
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
		gid = uid
	}
	held := false
	defer func() {
		if !held && b.root && b.uids != nil {
			b.uids.release(uid)
		}
	}()
	if b.root {
		if err := chownTree(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("sandbox bwrap: hand %s to uid %d: %w", dir, uid, err)
		}
	}
	// A bounded directory (botfs.go) is mounted in the holder's namespace: the sandbox is
	// started there, and binds it by its path there.
	var enter []string
	if bd := boundDirOf(dir); bd != nil && b.botfs != nil {
		enter = bd.holder.nsenter(b.botfs.nsenter)
		spec.Argv = slices.Clone(spec.Argv)
		for i, arg := range spec.Argv {
			if arg == dir || strings.HasPrefix(arg, dir+"/") {
				spec.Argv[i] = bd.hostPath(dir) + strings.TrimPrefix(arg, dir)
			}
		}
		dir = bd.hostPath(dir)
	}
	// bwrap writes {"exit-code": n} to fd 3 once its command has run and ended; a file
	// that lacks it after a normal exit means the sandbox itself failed (sandboxFailed).
	status, err := scratchFile(statusPrefix, nil)
	if err != nil {
		return nil, fmt.Errorf("sandbox bwrap: status file: %w", err)
	}
	// bwrap's options go through fd 4 rather than the command line, so that the bot,
	// which can read /proc/1/cmdline, learns neither the host path of its directory nor
	// the sandbox's layout.
	options, command := b.args(dir, spec, uid, gid)
	var optData []byte
	for _, o := range options {
		optData = append(append(optData, o...), 0)
	}
	optFile, err := scratchFile("kothd-bwrap-args-", optData)
	if err != nil {
		status.Close()
		return nil, fmt.Errorf("sandbox bwrap: argument file: %w", err)
	}
	files := []*os.File{status, optFile} // fds 3 and 4
	if filter := b.filter(spec); filter != nil {
		// fd 5, read by bwrap (--seccomp 5 in args) and closed before the command runs.
		f, err := scratchFile("kothd-bwrap-seccomp-", filter)
		if err != nil {
			status.Close()
			optFile.Close()
			return nil, fmt.Errorf("sandbox bwrap: seccomp file: %w", err)
		}
		files = append(files, f)
	}
	// The constant copies of /proc files, on the descriptors args numbered after these.
	for _, fp := range b.fakes {
		f, err := fp.open()
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("sandbox bwrap: %s copy: %w", fp.path, err)
		}
		files = append(files, f)
	}
	bw := append([]string{b.Path, "--args", "4", "--"}, command...)
	if enter != nil {
		bw = append(enter, bw...)
	}
	// The helper that puts the sandbox under the sysinfo filter comes first, with its
	// end of the socket to the daemon and its own binary as the last descriptors
	// (notifyexec.go).
	var supervisor *os.File
	if b.sysinfo {
		prog, err := notifySeccomp() // computed once; sysinfoUsable checked it
		var d, h, exe *os.File
		if err == nil {
			d, h, exe, err = notifyFiles()
		}
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
		files = append(files, h, exe)
		helperFD, exeFD := strconv.Itoa(1+len(files)), strconv.Itoa(2+len(files))
		// No cgroup to join, unless the sandbox gets one below.
		bw = append(notifyExecArgs(helperFD, exeFD, prog), bw...)
		supervisor = d
	}
	sealInheritedFDs()
	cmd := exec.Command(bw[0], bw[1:]...)
	cmd.Dir = "/"
	cmd.Env = append(BaseEnv(mountPoint(spec)), spec.Env...)
	if !spec.ReadOnlyDir {
		// There is no /tmp to write to (see args): temporary files go to the bot's own
		// directory, where the directory allowance counts them.
		cmd.Env = append(cmd.Env, "TMPDIR="+mountPoint(spec))
	}
	if spec.Launcher && b.seccomp != nil {
		// The launcher applies the bots' full filter itself once it is in its own user
		// namespace, and removes this variable from what the bots it starts inherit.
		cmd.Env = append(cmd.Env, "KOTHD_SECCOMP="+base64.StdEncoding.EncodeToString(b.seccomp))
	}
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &Process{Cmd: cmd}
	if b.cgroups != nil {
		cg, err := b.cgroups.newSandbox(spec.Limits.withDefaults(), spec.Share)
		if err == nil {
			if supervisor != nil {
				// The helper joins the cgroup itself once its work is done, just before
				// it becomes bwrap: started inside, its Go runtime's threads would count
				// against the sandbox's task limit (a Procs of 1 allows three tasks).
				var procs []string
				for _, d := range cg.dirs {
					procs = append(procs, filepath.Join(d, "cgroup.procs"))
				}
				cmd.Args = notifyExecCgroups(cmd.Args, procs)
			} else if err = cg.enter(cmd); err != nil {
				cg.release()
			}
		}
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			if supervisor != nil {
				supervisor.Close()
			}
			return nil, fmt.Errorf("sandbox bwrap: %w", err)
		}
		p.cg = cg
	}
	if supervisor != nil {
		// Ends when the last process under the filter is gone, or at Release.
		p.sysinfo = newSysinfoSupervisor(supervisor, spec.Limits.withDefaults().MemoryBytes())
		go p.sysinfo.run()
	}
	if b.root && b.uids != nil {
		pool := b.uids
		p.uid, p.pooled, p.freeUID = uid, true, func() { pool.release(uid) }
		held = true
	}
	return p, nil
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

// args builds bwrap's options and the command it runs for one process, whose bot runs as
// uid:gid when the daemon is root.
func (b *Bwrap) args(dir string, spec ProcSpec, uid, gid int) (options, command []string) {
	a := []string{"--die-with-parent", "--new-session", "--json-status-fd", "3"}
	if b.root {
		// Real root: bwrap needs no user namespace to build the sandbox, and keeps just
		// enough privilege for setpriv to switch to the bots' identity (rootChain).
		a = append(a, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
			"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
	} else {
		a = append(a, "--unshare-all", "--unshare-user")
		if !spec.Launcher {
			// Belt and braces with the filter: no user namespace below bwrap's. The
			// launcher makes one of its own first (seccomp.go, withoutUserns).
			a = append(a, "--disable-userns")
		}
	}
	nextFD := 5 // fds 3 and 4 are the status and these options (Command)
	if b.filter(spec) != nil {
		a = append(a, "--seccomp", strconv.Itoa(nextFD))
		nextFD++
	}
	a = append(a, "--hostname", "sandbox")

	lim := spec.Limits.withDefaults()
	// No tmpfs at /tmp: a tmpfs bounds bytes but not inodes (bwrap cannot pass nr_inodes),
	// and 400,000 empty files there held 330 MB of kernel memory. /tmp is an empty,
	// read-only directory; TMPDIR names the bot's own directory when it is writable.
	a = append(a, "--proc", "/proc")
	for _, p := range b.masked {
		a = append(a, "--ro-bind", "/dev/null", p)
	}
	for _, p := range b.maskedDirs {
		a = append(a, "--tmpfs", p, "--remount-ro", p)
	}
	for _, fp := range b.fakes {
		a = append(a, "--perms", "0444", "--ro-bind-data", strconv.Itoa(nextFD), fp.path)
		nextFD++
	}
	// No ptys: bwrap's --dev mounts a devpts of its own, but the kernel counts and caps
	// ptys host-wide (kernel.pty.max): two sandboxes that opened ptys until refused left
	// none to any container of the host, and pty/nr passed exact counts between them. An
	// empty read-only /dev/pts leaves /dev/ptmx (a link to pts/ptmx) dangling: opening it,
	// and so openpty, fails with ENOENT.
	a = append(a,
		"--dev", "/dev",
		"--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts",
		"--dir", "/tmp")
	// A prefix holding the bot's directory (and so the data directory) is never bound:
	// the command then fails inside, visibly.
	var extras []string
	for _, extra := range b.namedPrefixes(spec) {
		if dir != extra && !strings.HasPrefix(dir, extra+"/") && !slices.Contains(b.ReadOnly, extra) && !slices.Contains(extras, extra) {
			extras = append(extras, extra)
		}
	}
	// bwrap creates missing parents of a mount point 0700 and owned by the sandbox's
	// root: make them traversable first, or the unprivileged bot could not reach
	// /etc/alternatives or /root/.pyenv/versions.
	mount := mountPoint(spec)
	for _, p := range parents(append(slices.Concat(b.ReadOnly, extras), mount)) {
		a = append(a, "--perms", "0755", "--dir", p)
	}
	bind := func(p string) {
		if target, err := os.Readlink(p); err == nil {
			a = append(a, "--symlink", target, p)
		} else {
			a = append(a, "--ro-bind", p, p)
		}
	}
	for _, p := range b.ReadOnly {
		bind(p)
	}
	// The hidden directories: an empty tmpfs over each, the named prefixes under it bound
	// into it, then read-only.
	for _, h := range b.hidden {
		a = append(a, "--tmpfs", h)
	}
	for _, p := range extras {
		bind(p)
	}
	for _, h := range b.hidden {
		a = append(a, "--remount-ro", h)
	}
	a = append(a,
		bindFlag(spec), dir, mount,
		// The root and /dev are tmpfs the bot could otherwise fill without bound.
		"--remount-ro", "/dev",
		"--remount-ro", "/",
		"--chdir", mount)
	var c []string
	if b.root {
		c = append(c, b.rootChain(uid, gid)...)
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
// CAP_SETUID/CAP_SETGID, and setpriv switches to uid/gid, drops every capability for good
// and sets no_new_privs. The uid is the bot directory's own from the pool (uidpool.go):
// the kernel counts RLIMIT_NPROC and other per-user resources per uid, so each sandbox
// has its own count and one bot's fork bomb cannot starve the others. (This used to be
// a user namespace per sandbox, made by unshare(1) here; the seccomp filter forbids that
// now, to bots and tools alike.)
//
// Bind sources are resolved by bwrap as root, so the data directory and /root need not be
// readable by the bot; the bot's directory is handed to its uid instead (chownTree).
func (b *Bwrap) rootChain(uid, gid int) []string {
	return []string{
		b.setpriv, "--reuid=" + strconv.Itoa(uid), "--regid=" + strconv.Itoa(gid), "--clear-groups",
		"--bounding-set=-all", "--inh-caps=-all", "--nnp", "--",
	}
}

// visible reports whether a host path lies under something bound into every sandbox.
func (b *Bwrap) visible(p string) bool {
	return under(b.ReadOnly, p) && !under(b.hidden, p)
}

// under reports whether p is one of dirs or lies below one.
func under(dirs []string, p string) bool {
	for _, m := range dirs {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}

// interpreterPrefix returns the installation prefix of an interpreter named by absolute
// path outside the default binds (e.g. /opt/python3.12/bin/python3 → /opt/python3.12),
// so that a language's run command works without listing its prefix; "" when none is
// needed. Under a named root the prefix is the root's entry (/root/.pyenv/versions/2.7.18,
// /usr/local/go). A prefix of fewer than two levels (/opt, /root) is refused: the command
// then fails inside, visibly, instead of exposing it.
func (b *Bwrap) interpreterPrefix(argv0 string) string {
	if !filepath.IsAbs(argv0) || b.visible(argv0) {
		return ""
	}
	clean := filepath.Clean(argv0)
	for _, root := range namedRoots {
		if rest, ok := strings.CutPrefix(clean, root+"/"); ok {
			first, _, _ := strings.Cut(rest, "/")
			if first == "" || first == "." || first == ".." {
				return ""
			}
			return root + "/" + first
		}
	}
	prefix := filepath.Dir(clean)
	if filepath.Base(prefix) == "bin" {
		prefix = filepath.Dir(prefix)
	}
	if strings.Count(prefix, "/") < 2 {
		return ""
	}
	return prefix
}

// namedPrefixes lists the installation prefixes outside the default binds that spec's
// process needs: the interpreter its command starts with, the absolute paths of programs
// a shell script on its command line names (a build command: `sh -c "... /usr/local/go/
// bin/go build"`), the same for the bot command kothd's launcher wraps, and
// spec.Prefixes. All of these are the host's words (a language's commands, the runner's),
// never a bot's. Paths under a named root that do not exist are not bound.
func (b *Bwrap) namedPrefixes(spec ProcSpec) []string {
	var out []string
	add := func(path string) {
		if p := b.interpreterPrefix(path); p != "" && !slices.Contains(out, p) {
			if _, err := os.Stat(p); err == nil || !underNamedRoot(p) {
				out = append(out, p)
			}
		}
	}
	var scan func(argv []string)
	scan = func(argv []string) {
		if len(argv) == 0 {
			return
		}
		add(argv[0])
		if len(argv) > 2 && argv[1] == "-c" && isShell(argv[0]) {
			for _, word := range strings.FieldsFunc(argv[2], notPathChar) {
				if underNamedRoot(word) {
					add(word)
				}
			}
		}
		if spec.Launcher {
			for i, a := range argv {
				if strings.HasPrefix(a, "--isolation=") {
					scan(argv[i+1:])
					break
				}
			}
		}
	}
	scan(spec.Argv)
	for _, p := range spec.Prefixes {
		if underNamedRoot(p) {
			add(p + "/bin/x")
		}
	}
	return out
}

// underNamedRoot reports whether an absolute path lies below one of namedRoots.
func underNamedRoot(p string) bool {
	for _, root := range namedRoots {
		if strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// isShell reports whether argv0 names a POSIX shell.
func isShell(argv0 string) bool {
	switch filepath.Base(argv0) {
	case "sh", "bash", "dash":
		return true
	}
	return false
}

// notPathChar splits a shell script into the words that may be paths.
func notPathChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._+-", r))
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
func sandboxFailed(p *Process, err error) bool {
	if p == nil {
		return false
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Exited() {
		return false
	}
	report, ok := p.statusReport()
	return ok && !bytes.Contains(report, []byte(`"exit-code"`))
}

// statusFile is the command's bwrap status file (fd 3), or nil for a command made
// otherwise.
func statusFile(cmd *exec.Cmd) *os.File {
	if cmd == nil || len(cmd.ExtraFiles) == 0 || cmd.ExtraFiles[0] == nil {
		return nil
	}
	if f := cmd.ExtraFiles[0]; strings.HasPrefix(filepath.Base(f.Name()), statusPrefix) {
		return f
	}
	return nil
}
