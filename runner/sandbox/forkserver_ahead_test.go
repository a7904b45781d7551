package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The fork servers fork each decision's process ahead, before the launcher asks
// (launch/forkserver.py, serve): the process forked ahead reads the launcher's message
// itself. These tests speak the server's protocol directly, unsandboxed, with Python 3 and
// 2.7: a process forked ahead that is killed before its decision is replaced, a message
// that is no decision's is answered and the next one served, and once the launcher is gone
// the server and the process it forked ahead both end (no fork after fork); a server whose
// processes forked ahead die three times in a row without a decision gives up.

// forkBoot is the boot line forkclient.py starts a server with (FORK_BOOT, FORK_BOOT2).
func forkBoot(t *testing.T, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)\n` + name + ` = \((.*?)\)\n`).FindStringSubmatch(forkClientSource)
	if m == nil {
		t.Fatalf("%s not found in forkclient.py", name)
	}
	var boot strings.Builder
	for _, part := range regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(m[1], -1) {
		s, err := strconv.Unquote(`"` + part[1] + `"`)
		if err != nil {
			t.Fatal(err)
		}
		boot.WriteString(s)
	}
	return boot.String()
}

type aheadServer struct {
	t    *testing.T
	cmd  *exec.Cmd
	sock int
	errs bytes.Buffer
}

func startAheadServer(t *testing.T, python, boot, source string) *aheadServer {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := &aheadServer{t: t, sock: pair[0]}
	theirs := os.NewFile(uintptr(pair[1]), "server")
	s.cmd = exec.Command(python, "-c", boot)
	s.cmd.Dir = t.TempDir()
	s.cmd.ExtraFiles = []*os.File{theirs}
	s.cmd.Stderr = &s.errs
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	theirs.Close()
	t.Cleanup(func() {
		if s.sock >= 0 {
			unix.Close(s.sock)
		}
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	})
	if _, err := unix.Write(s.sock, []byte(source)); err != nil {
		t.Fatal(err)
	}
	if got := s.recv(); got != "R" {
		t.Fatalf("greeting %q; stderr: %s", got, s.errs.String())
	}
	return s
}

func (s *aheadServer) recv() string {
	s.t.Helper()
	fds := []unix.PollFd{{Fd: int32(s.sock), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 10000); err != nil || n == 0 {
		s.t.Fatalf("no message from the server (%v); stderr: %s", err, s.errs.String())
	}
	buf := make([]byte, 64)
	n, err := unix.Read(s.sock, buf)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(buf[:n])
}

// children are the server's children: the process forked ahead, between decisions.
func (s *aheadServer) children() []string {
	pid := s.cmd.Process.Pid
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	return strings.Fields(string(data))
}

// waitChild waits until the server has one child other than not.
func (s *aheadServer) waitChild(not string) string {
	s.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if k := s.children(); len(k) == 1 && k[0] != not {
			return k[0]
		}
	}
	s.t.Fatalf("the server forked no process ahead (children %v); stderr: %s", s.children(), s.errs.String())
	return ""
}

// decide has the server run script with python; it returns the decision's stdout.
func (s *aheadServer) decide(python, script string) string {
	s.t.Helper()
	dir := s.cmd.Dir
	if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte(script), 0o644); err != nil {
		s.t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		s.t.Fatal(err)
	}
	defer r.Close()
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	msg := []byte("\x00" + python + "\x00bot.py\x00x")
	err = unix.Sendmsg(s.sock, msg, unix.UnixRights(int(null.Fd()), int(w.Fd()), int(w.Fd())), nil, 0)
	w.Close()
	if err != nil {
		s.t.Fatal(err)
	}
	p := s.recv()
	if !strings.HasPrefix(p, "P") {
		s.t.Fatalf("reply %q, want P<pid>; stderr: %s", p, s.errs.String())
	}
	out, _ := io.ReadAll(r)
	if st := s.recv(); st != "S"+p[1:]+" 0" {
		s.t.Fatalf("report %q after %q, want S%s 0; stderr: %s", st, p, p[1:], s.errs.String())
	}
	return string(out)
}

func TestForkServerForksAhead(t *testing.T) {
	for _, c := range []struct{ name, python, boot, source string }{
		{"python3", "/usr/bin/python3", "FORK_BOOT", forkServerSource},
		{"python2.7", testPython2, "FORK_BOOT2", forkServer2Source},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.python); err != nil {
				t.Skip(err)
			}
			s := startAheadServer(t, c.python, forkBoot(t, c.boot), c.source)
			const bot = "import sys\nprint('decided ' + sys.argv[1])\n"
			// Killed before its decision came: another is forked in its place, which serves it.
			first := s.waitChild("")
			n, _ := strconv.Atoi(first)
			if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			second := s.waitChild(first)
			if got := s.decide(c.python, bot); got != "decided x\n" {
				t.Fatalf("decision after the process forked ahead was killed: %q", got)
			}
			// A message that is no decision's (no descriptors) is answered E, the next served.
			s.waitChild(second)
			if _, err := unix.Write(s.sock, []byte("\x00"+c.python+"\x00bot.py")); err != nil {
				t.Fatal(err)
			}
			if got := s.recv(); got != "E" {
				t.Fatalf("reply to a message without descriptors: %q", got)
			}
			if got := s.decide(c.python, bot); got != "decided x\n" {
				t.Fatalf("decision after an E: %q", got)
			}
			// The launcher gone: the server ends, and so does the process it forked ahead.
			ahead := s.waitChild("")
			unix.Close(s.sock)
			s.sock = -1
			done := make(chan error, 1)
			go func() { done <- s.cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("server's end: %v; stderr: %s", err, s.errs.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the server did not end once the launcher was gone (children %v)", s.children())
			}
			// Killed three times in a row before a decision: the server ends (the launcher
			// then starts another, or launches plainly) rather than fork forever.
			s = startAheadServer(t, c.python, forkBoot(t, c.boot), c.source)
			last := ""
			for range 3 {
				last = s.waitChild(last)
				n, _ := strconv.Atoi(last)
				_ = syscall.Kill(n, syscall.SIGKILL)
			}
			go func() { done <- s.cmd.Wait() }()
			select {
			case err := <-done:
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 1 {
					t.Fatalf("server's end after three silent deaths: %v; stderr: %s", err, s.errs.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the server still forks after three silent deaths (children %v)", s.children())
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat("/proc/" + ahead); os.IsNotExist(err) {
					break
				}
				if stat, _ := os.ReadFile("/proc/" + ahead + "/stat"); bytes.Contains(stat, []byte(") Z ")) {
					break // a zombie: ended, reaped by init
				}
				if time.Now().After(deadline) {
					t.Fatalf("the process forked ahead (%s) outlived the server", ahead)
				}
			}
		})
	}
}
