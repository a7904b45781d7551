package sandbox

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// memfdCreate makes a memfd of flags, asking for MFD_NOEXEC_SEAL too where the kernel
// knows it: kernels from 6.3 with vm.memfd_noexec=2 may refuse a memfd without it, and
// kernels before 6.3 refuse the flag.
func memfdCreate(name string, flags int) (int, error) {
	fd, err := unix.MemfdCreate(name, flags|unix.MFD_NOEXEC_SEAL)
	if err != nil {
		fd, err = unix.MemfdCreate(name, flags)
	}
	return fd, err
}

// scratchFile returns a file holding data, positioned at its start, that no directory
// names: a memfd, or an unlinked temporary file where the kernel refuses one. A sandbox
// takes three (bwrap's status, its options, the seccomp program): in memory, a full or
// slow /tmp neither fails nor slows a sandbox's start. It closes when the *os.File is
// garbage (the exec.Cmd holding it).
func scratchFile(name string, data []byte) (*os.File, error) {
	var f *os.File
	if fd, err := memfdCreate(name, unix.MFD_CLOEXEC); err == nil {
		f = os.NewFile(uintptr(fd), name)
	} else {
		if f, err = os.CreateTemp("", name+"*"); err != nil {
			return nil, err
		}
		_ = os.Remove(f.Name())
	}
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
