package sandbox

// #include "notifyexec.h"
import "C"

import (
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// The helper that puts a sandbox under the sysinfo filter (sysinfo.go says why it exists).
// The sandbox's command is
//
//	/proc/self/fd/<exe> notifyExecArg <sock> <exe> <filter> <n> <cgroup.procs>×n <command...>
//
// the daemon's own binary (in tests, the test binary), passed as descriptor <exe>, which
// a C constructor of this package (notifyexec.c) turns into the helper before the Go
// runtime starts: it
// installs the filter with a listener, sends the listener over the Unix socket <sock> to
// the daemon, closes all three, joins the sandbox's cgroup (writes its pid to each of the
// n cgroup.procs files) and executes the command, bwrap (or nsenter, then bwrap). It joins
// last rather than being started inside (CLONE_INTO_CGROUP, or cgroup v1's joining shell):
// moving a process in is not held to the cgroup's task limit. It runs outside the sandbox,
// on the host, before bwrap: nothing of the bot has run yet, and nothing of the daemon's
// binary need be bound into the sandbox. The binary goes by descriptor, not by name: on a
// host with cgroup v1 the command is started by a shell that joins the cgroup first (so
// /proc/self/exe would be the shell), and an upgrade may have replaced the file since the
// daemon started (the descriptor, opened through the daemon's /proc/self/exe, is still the
// running binary). It costs one start of the binary per sandbox, its dynamic loading
// without the Go runtime (docs/trust.md has the figures); a one-shot bot's decisions are
// served by a launcher inside one sandbox and pay it once.

// The helper's argument and failure status (notifyexec.h).
const (
	notifyExecArg    = C.KOTHD_NOTIFY_EXEC_ARG
	notifyExecStatus = C.KOTHD_NOTIFY_EXEC_STATUS
)

// notifyExecArgs is the helper's command line before the sandbox's command: the
// daemon's binary (descriptor exe), the socket to the daemon (descriptor sock), the
// filter in hex (notifyexec.c reads it back) and, n being zero until the sandbox's cgroup
// is known, no cgroup.procs to join.
func notifyExecArgs(sock, exe string, prog []byte) []string {
	return []string{"/proc/self/fd/" + exe, notifyExecArg, sock, exe, hex.EncodeToString(prog), "0"}
}

// notifyExecCount is the place of the count of cgroup.procs files in notifyExecArgs'
// line, the files following it (notifyexec.c reads argv[5] so).
const notifyExecCount = 5

// notifyExecCgroups puts the cgroup.procs files to join into a helper's command line.
func notifyExecCgroups(args, procs []string) []string {
	return slices.Concat(args[:notifyExecCount], []string{strconv.Itoa(len(procs))}, procs, args[notifyExecCount+1:])
}

// notifyFiles makes what one sandbox's helper needs: the socket pair between the daemon
// and the helper (the daemon's end nonblocking, for the poller) and the daemon's binary
// opened for the helper's start. The helper closes its two before it executes bwrap.
func notifyFiles() (daemon, helper, exe *os.File, err error) {
	exe, err = os.Open(selfExe)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the daemon's binary: %w", err)
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.SetNonblock(pair[0], true); err != nil {
			unix.Close(pair[0])
			unix.Close(pair[1])
		}
	}
	if err != nil {
		exe.Close()
		return nil, nil, nil, fmt.Errorf("sysinfo socket: %w", err)
	}
	return os.NewFile(uintptr(pair[0]), "kothd-sysinfo-daemon"), os.NewFile(uintptr(pair[1]), "kothd-sysinfo-helper"), exe, nil
}

// selfExe is the daemon's own binary: still the binary that runs, even once an upgrade
// replaced the file.
const selfExe = "/proc/self/exe"

// sysinfoUsable says why sandboxes cannot be put under the sysinfo filter here, or nil.
func (b *Bwrap) sysinfoUsable() error {
	if b.seccomp == nil {
		return errSeccompArch
	}
	if _, err := notifySeccomp(); err != nil {
		return err
	}
	if err := userNotifAvailable(); err != nil {
		return err
	}
	if _, err := os.Stat(selfExe); err != nil {
		return fmt.Errorf("the daemon's binary: %w", err)
	}
	return nil
}
