package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Lock is the exclusive hold of one kothd process on a data directory.
type Lock struct{ f *os.File }

// LockFile is the name of the lock file inside a data directory.
const LockFile = "kothd.lock"

// LockDir takes the data directory for this process: two kothd instances playing and
// publishing from one directory would race each other's runs and let an older run's board
// overwrite a newer one. The lock is an flock(2) on dir/kothd.lock, so the kernel drops it
// when the holder dies, even by SIGKILL; the file names the holder's pid for the message
// another instance prints.
func LockDir(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
					holder = fmt.Sprintf("pid %d", pid)
				}
			}
			return nil, fmt.Errorf("data directory %s is in use by another kothd (%s holds %s); one instance per data directory", dir, holder, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Release gives the directory up (the kernel also does when the process ends).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing the only descriptor releases the flock
	l.f = nil
	return err
}

// LockHolder reports the pid of the process holding dir's lock, or 0 when none does. It
// takes nothing (a status command must never keep a starting daemon from its directory,
// even for an instant): it finds the lock file's flock in /proc/locks. err is set when that
// cannot be known (no /proc).
func LockHolder(dir string) (int, error) {
	path := filepath.Join(dir, LockFile)
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return 0, nil
		}
		return 0, fmt.Errorf("lock %s: %w", path, err)
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, fmt.Errorf("who holds %s: %w", path, err)
	}
	dev := uint64(st.Dev)
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, (dev&0xff)|(dev>>12)&^0xff
	// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:56789 0 EOF": the device in hex, the inode in decimal.
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, st.Ino)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil && pid > 0 {
			return pid, nil
		}
	}
	return 0, nil
}
