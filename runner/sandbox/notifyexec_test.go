package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The helper runs in a C constructor of the binary (notifyexec.c), before the Go runtime:
// started as the helper, the test binary does the helper's work and executes the command,
// or fails with notifyExecStatus and a message; no Go code of it runs either way.
func TestNotifyExecHelper(t *testing.T) {
	prog, err := notifySeccomp()
	if err != nil {
		t.Skip(err)
	}
	if err := userNotifAvailable(); err != nil {
		t.Skip(err)
	}
	helper := func(t *testing.T, sock *os.File, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if sock != nil {
			cmd.ExtraFiles = []*os.File{sock} // fd 3
		}
		err := cmd.Run()
		return out.String() + errs.String(), err
	}
	hexProg := notifyExecArgs("3", "-1", prog)[4]

	t.Run("runs the command with the filter", func(t *testing.T) {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(pair[0])
		theirs := os.NewFile(uintptr(pair[1]), "helper")
		out, err := helper(t, theirs, notifyExecArg, "3", "-1", hexProg, "0", "sh", "-c", `echo ran; while read -r l; do case $l in Seccomp:*) echo "$l";; esac; done </proc/self/status`)
		theirs.Close()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		// A filter is installed (mode 2) and the command, found through PATH, ran (shell
		// builtins only: nothing answers the sysinfo calls a program might make).
		if !strings.Contains(out, "ran") || !strings.Contains(out, "Seccomp:\t2") {
			t.Fatalf("output %q", out)
		}
		// The listener came over the socket.
		buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
		_, oobn, _, _, err := unix.Recvmsg(pair[0], buf, oob, unix.MSG_DONTWAIT)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			t.Fatalf("control messages %v, %v", msgs, err)
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			t.Fatalf("rights %v, %v", fds, err)
		}
		unix.Close(fds[0])
	})

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad socket", []string{notifyExecArg, "x", "-1", hexProg, "0", "true"}, "kothd sandbox helper: socket x"},
		{"bad count", []string{notifyExecArg, "3", "-1", hexProg, "9", "true"}, "kothd sandbox helper: cgroup count 9"},
		{"bad filter", []string{notifyExecArg, "3", "-1", "zz" + hexProg[2:], "0", "true"}, "kothd sandbox helper: filter not hex"},
		{"short filter", []string{notifyExecArg, "3", "-1", hexProg[:10], "0", "true"}, "kothd sandbox helper: filter of a bad length"},
		{"no socket", []string{notifyExecArg, "3", "-1", hexProg, "0", "true"}, "kothd sandbox helper: send the listener"},
		{"no cgroup", []string{notifyExecArg, "3", "-1", hexProg, "1", "/nonexistent/cgroup.procs", "true"}, "kothd sandbox helper: join cgroup /nonexistent/cgroup.procs"},
		{"no command", []string{notifyExecArg, "3", "-1", hexProg, "0", "/nonexistent/bwrap"}, "kothd sandbox helper: exec /nonexistent/bwrap"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sock *os.File
			if c.name == "no cgroup" || c.name == "no command" {
				pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer unix.Close(pair[0])
				sock = os.NewFile(uintptr(pair[1]), "helper")
				defer sock.Close()
			}
			out, err := helper(t, sock, c.args...)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != notifyExecStatus {
				t.Fatalf("%v, want exit status %d; output %q", err, notifyExecStatus, out)
			}
			if !strings.HasPrefix(out, c.want) {
				t.Fatalf("output %q, want %q…", out, c.want)
			}
		})
	}
}
