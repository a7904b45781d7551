package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/net/bpf"
)

// The seccomp filter every bwrap sandbox runs under (bwrap --seccomp), builds included.
//
// Two sandboxes share a kernel, the same read-only /usr and, on a host where the daemon is
// not root, the same host uid. Through those, two bots that never meet in a game could
// pass each other data: a 64-bit value went exactly from one sandbox to another by taking
// and testing flock locks on files of /usr, and two Mafia bots that never ran at the same
// time passed data through the page cache (evicting pages with posix_fadvise, probing with
// preadv2(RWF_NOWAIT)). The filter denies the system calls that read or change such shared
// state, and those that reach other processes or the kernel's wider surface; see
// docs/trust.md, "Sandboxes cannot talk to each other", for what remains.
//
// It is a deny list: anything not named is allowed, so the interpreters and compilers bots
// use keep working. A denied call fails with EPERM (or ENOSYS where the C library or
// runtime then falls back: clone3 → clone, io_uring → plain I/O), never a signal, so a bot
// that happens to use one sees an ordinary error.
//
// The filter is assembled here with golang.org/x/net/bpf rather than by a seccomp library:
// the one maintained pure-Go library (elastic/go-seccomp-bpf) compares arguments as 64-bit
// values, but the kernel reads fcntl's command and preadv2's flags as 32-bit ints, so a bot
// could set the upper half of the register and slip past such a test; and it lets a call of
// a foreign architecture (int 0x80 on x86-64) through when the policy's default is to allow.
// Every argument test below looks at the low 32 bits only, and a foreign architecture kills
// the process.

// seccompRule denies one system call, always or only for some values of an argument.
type seccompRule struct {
	name  string
	errno syscall.Errno
	// arg >= 0 tests the low 32 bits of that argument: the call is denied when they equal
	// one of deny, when they have a bit of denyBits set, or (when only is not empty) when
	// they equal none of only. Without a test (arg < 0) the call is always denied.
	arg      int
	deny     []uint32
	denyBits uint32
	only     []uint32
}

func always(name string, errno syscall.Errno) seccompRule {
	return seccompRule{name: name, errno: errno, arg: -1}
}

// Values the argument tests use (uapi headers; the same on every architecture here).
const (
	cloneNewUser = 0x10000000 // CLONE_NEWUSER
	rwfNoWait    = 0x00000008 // RWF_NOWAIT
	afUnix       = 1
	afNetlink    = 16
	prSchedCore  = 62 // PR_SCHED_CORE
)

// fcntlLockCmds are fcntl's commands that take, test or watch a lock or lease on a file, or
// ask for notice of changes to a directory: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK,
// F_OFD_SETLK, F_OFD_SETLKW, F_SETLEASE, F_GETLEASE, F_NOTIFY. Locks on a file every
// sandbox can open are visible to all of them.
var fcntlLockCmds = []uint32{5, 6, 7, 36, 37, 38, 1024, 1025, 1026}

// seccompRules is the policy. One rule per system call.
var seccompRules = []seccompRule{
	// File locks, leases and change notices: state attached to files every sandbox sees.
	always("flock", syscall.EPERM),
	{name: "fcntl", errno: syscall.EPERM, arg: 1, deny: fcntlLockCmds},
	always("inotify_init", syscall.EPERM), // not on arm64, which has only inotify_init1
	always("inotify_init1", syscall.EPERM),
	always("inotify_add_watch", syscall.EPERM),
	always("fanotify_init", syscall.EPERM),
	always("fanotify_mark", syscall.EPERM),
	// The page cache: what is cached of a shared file, evicting it, probing it.
	always("fadvise64", syscall.EPERM),
	always("readahead", syscall.EPERM),
	always("mincore", syscall.EPERM),
	always("cachestat", syscall.ENOSYS),
	{name: "preadv2", errno: syscall.EPERM, arg: 5, denyBits: rwfNoWait},
	{name: "pwritev2", errno: syscall.EPERM, arg: 5, denyBits: rwfNoWait},
	// Asynchronous I/O interfaces that take RWF_NOWAIT (and much else) out of reach of the
	// tests above; programs fall back to plain reads and writes.
	always("io_uring_setup", syscall.ENOSYS),
	always("io_uring_enter", syscall.ENOSYS),
	always("io_uring_register", syscall.ENOSYS),
	always("io_setup", syscall.ENOSYS),
	always("io_submit", syscall.ENOSYS),
	// Filesystems' free counts: statfs of a path bound from the host (/usr/bin,
	// /etc/alternatives, a bot directory on the host's disk) reads that filesystem's free
	// blocks and inodes, which every write to it moves: 8 MB written in one sandbox moved
	// f_bfree by 2,048 in another. ENOSYS: glibc's pathconf then answers its defaults, and
	// statvfs and disk-usage calls fail plainly. ustat is the old form of the same.
	always("statfs", syscall.ENOSYS),
	always("fstatfs", syscall.ENOSYS),
	always("ustat", syscall.ENOSYS), // not on arm64
	// Kernel keyrings are per host uid: shared by every sandbox of that uid.
	always("add_key", syscall.EPERM),
	always("request_key", syscall.EPERM),
	always("keyctl", syscall.EPERM),
	// Other processes: their memory, their descriptors, comparing kernel objects.
	always("ptrace", syscall.EPERM),
	always("process_vm_readv", syscall.EPERM),
	always("process_vm_writev", syscall.EPERM),
	always("process_madvise", syscall.EPERM),
	always("pidfd_getfd", syscall.EPERM),
	always("kcmp", syscall.EPERM),
	// System-wide counters and programs, the kernel log (a crash's line in it is a bit).
	always("perf_event_open", syscall.EPERM),
	always("bpf", syscall.EPERM),
	always("userfaultfd", syscall.EPERM),
	always("syslog", syscall.EPERM),
	// Namespaces: a new user namespace would give the bot capabilities over new mount and
	// network namespaces (much of the kernel's attack surface) and a fresh process count.
	// clone3 passes its flags in memory a filter cannot read: ENOSYS makes glibc fall back
	// to clone, whose flags it can.
	{name: "unshare", errno: syscall.EPERM, arg: 0, denyBits: cloneNewUser},
	{name: "clone", errno: syscall.EPERM, arg: 0, denyBits: cloneNewUser},
	always("clone3", syscall.ENOSYS),
	always("setns", syscall.EPERM),
	// Mounts and the root (bwrap has built the sandbox before the filter is applied).
	always("mount", syscall.EPERM),
	always("umount2", syscall.EPERM),
	always("pivot_root", syscall.EPERM),
	always("chroot", syscall.EPERM),
	always("open_tree", syscall.EPERM),
	always("move_mount", syscall.EPERM),
	always("fsopen", syscall.EPERM),
	always("fsconfig", syscall.EPERM),
	always("fsmount", syscall.EPERM),
	always("fspick", syscall.EPERM),
	always("mount_setattr", syscall.EPERM),
	always("name_to_handle_at", syscall.EPERM),
	always("open_by_handle_at", syscall.EPERM),
	// The machine: nothing a bot has the privilege for, denied outright all the same.
	always("swapon", syscall.EPERM),
	always("swapoff", syscall.EPERM),
	always("reboot", syscall.EPERM),
	always("kexec_load", syscall.EPERM),
	always("kexec_file_load", syscall.EPERM),
	always("init_module", syscall.EPERM),
	always("finit_module", syscall.EPERM),
	always("delete_module", syscall.EPERM),
	always("acct", syscall.EPERM),
	always("quotactl", syscall.EPERM),
	// Scheduling: a bot that pins itself to one CPU or lowers its own priority makes itself
	// wait for a CPU, and a one-shot bot's wait is what tells a starved decision (the host's
	// fault, its game voided) from a slow one (starve.go): with an accomplice spinning on
	// that CPU, a bot could void the games it chose. Runtimes take EPERM here in stride.
	always("sched_setaffinity", syscall.EPERM),
	always("sched_setscheduler", syscall.EPERM),
	always("sched_setparam", syscall.EPERM),
	always("sched_setattr", syscall.EPERM),
	always("setpriority", syscall.EPERM),
	// Core scheduling (PR_SCHED_CORE): a task with a cookie of its own is kept idle while
	// its SMT sibling runs anything else, which inflates its wait at little cost.
	{name: "prctl", errno: syscall.EPERM, arg: 0, deny: []uint32{prSchedCore}},
	// Sockets: Unix and netlink sockets only, which the sandbox's network namespace
	// isolates. Others (vsock, for one) are not bound to a network namespace and could join
	// two sandboxes; and IPv4 and IPv6 sockets, though a sandbox's network is its own
	// loopback, move counters of the whole machine (/proc/net/sockstat's TCP alloc and
	// mem: 37 sockets in one sandbox moved alloc by 37 in another, and /proc/net cannot be
	// masked) and, on cgroup v1, park buffers no memory limit counts. A bot has no
	// network to use them on.
	{name: "socket", errno: syscall.EAFNOSUPPORT, arg: 0, only: []uint32{afUnix, afNetlink}},
}

// Return values of a seccomp filter (uapi linux/seccomp.h).
const (
	seccompRetKillProcess = 0x80000000
	seccompRetErrno       = 0x00050000
	seccompRetAllow       = 0x7fff0000
)

// Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6].
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// seccompArch is what the filter needs to know of an architecture: its AUDIT_ARCH value,
// its system call numbers by name, and whether calls of another ABI share its AUDIT_ARCH
// value (x32 on x86-64, told apart by a bit of the number).
type seccompArch struct {
	audit   uint32
	numbers map[string]uint32
	x32Bit  uint32
}

// argLow is the offset of the low 32 bits of argument i in struct seccomp_data.
func argLow(i int) uint32 {
	off := uint32(seccompDataArgs + 8*i)
	if binary.NativeEndian.Uint16([]byte{0, 1}) == 1 { // big-endian: the high half is first
		off += 4
	}
	return off
}

// assembleSeccomp turns rules into a filter program for arch. Calls a rule names that the
// architecture does not have are skipped (arm64 has no inotify_init).
func assembleSeccomp(a seccompArch, rules []seccompRule) ([]bpf.Instruction, error) {
	p := []bpf.Instruction{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: a.audit, SkipTrue: 1},
		bpf.RetConstant{Val: seccompRetKillProcess},
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if a.x32Bit != 0 {
		p = append(p,
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: a.x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: seccompRetErrno | uint32(syscall.ENOSYS)})
	}
	// The most frequent calls (read, write, mmap, …) have the smallest numbers, below
	// every denied one on both architectures: allow them without walking the list.
	lowest := uint32(1 << 31)
	for _, r := range rules {
		if nr, ok := a.numbers[r.name]; ok {
			lowest = min(lowest, nr)
		}
	}
	p = append(p,
		bpf.JumpIf{Cond: bpf.JumpLessThan, Val: lowest, SkipFalse: 1},
		bpf.RetConstant{Val: seccompRetAllow})
	seen := map[uint32]string{}
	for _, r := range rules {
		nr, ok := a.numbers[r.name]
		if !ok {
			continue
		}
		if other, dup := seen[nr]; dup {
			return nil, fmt.Errorf("seccomp: %s and %s are the same call (%d): one rule per call", other, r.name, nr)
		}
		seen[nr] = r.name
		deny := bpf.RetConstant{Val: seccompRetErrno | uint32(r.errno)}
		if r.arg < 0 {
			p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1}, deny)
			continue
		}
		if r.arg > 5 {
			return nil, fmt.Errorf("seccomp: %s: no argument %d", r.name, r.arg)
		}
		// The block: test the argument, then allow or deny; the number in A is lost after
		// the load, so a matching call never falls through to the next rule.
		var block []bpf.Instruction
		block = append(block, bpf.LoadAbsolute{Off: argLow(r.arg), Size: 4})
		// Jumps in the block land on its last two instructions: allow, then deny.
		var tests []bpf.JumpIf
		for _, v := range r.deny {
			tests = append(tests, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v}) // true → deny
		}
		if r.denyBits != 0 {
			tests = append(tests, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: r.denyBits})
		}
		var allowed []bpf.JumpIf
		for _, v := range r.only {
			allowed = append(allowed, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v}) // true → allow
		}
		if n := len(tests) + len(allowed); n == 0 || n > 200 {
			return nil, fmt.Errorf("seccomp: %s: argument test needs 1 to 200 values", r.name)
		}
		// After the tests: the allowed values, a jump over the allow when there are some
		// (none matched), the allow, the deny.
		ja := 0
		if len(allowed) > 0 {
			ja = 1
		}
		for i, t := range tests {
			t.SkipTrue = uint8(len(tests) - 1 - i + len(allowed) + ja + 1) // to the deny
			block = append(block, t)
		}
		for i, t := range allowed {
			t.SkipTrue = uint8(len(allowed) - 1 - i + ja) // to the allow
			block = append(block, t)
		}
		if ja == 1 {
			block = append(block, bpf.Jump{Skip: 1})
		}
		block = append(block, bpf.RetConstant{Val: seccompRetAllow}, deny)
		if len(block) > 255 {
			return nil, fmt.Errorf("seccomp: %s: argument test too long", r.name)
		}
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(len(block))})
		p = append(p, block...)
	}
	p = append(p, bpf.RetConstant{Val: seccompRetAllow})
	if len(p) > 4096 { // BPF_MAXINSNS
		return nil, fmt.Errorf("seccomp: program of %d instructions is too long", len(p))
	}
	return p, nil
}

// Compiled programs in the kernel's format (an array of struct sock_filter in native byte
// order), for this machine's architecture: the bots' filter, and the launcher's (the same
// without the user-namespace rules, see withoutUserns).
var (
	botSeccomp      = sync.OnceValues(func() ([]byte, error) { return compileSeccomp(seccompRules) })
	launcherSeccomp = sync.OnceValues(func() ([]byte, error) { return compileSeccomp(withoutUserns(seccompRules)) })
)

// withoutUserns drops the rules against new user namespaces. kothd's launcher (launch/
// launcher.py) enters a user and PID namespace of its own before it runs any bot code, and
// then applies the full filter itself (passed in KOTHD_SECCOMP): the bots it starts are
// under both.
func withoutUserns(rules []seccompRule) []seccompRule {
	var out []seccompRule
	for _, r := range rules {
		switch r.name {
		case "unshare", "clone", "clone3":
			continue
		}
		out = append(out, r)
	}
	return out
}

// compileSeccomp assembles rules for the running architecture.
func compileSeccomp(rules []seccompRule) ([]byte, error) {
	if nativeSeccomp.numbers == nil {
		return nil, errSeccompArch
	}
	prog, err := assembleSeccomp(nativeSeccomp, rules)
	if err != nil {
		return nil, err
	}
	return assembleRaw(prog)
}

// errSeccompArch says the filter is not available on this architecture.
var errSeccompArch = errors.New("seccomp: no system call table for this architecture (amd64 and arm64 have one)")
