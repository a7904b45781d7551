package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// WriteBotFile writes data to dir/name for the runner, which may be root, in a directory
// a sandboxed bot can write to. Whatever the bot left at that name (a symbolic link to
// /etc/passwd, a hard link, a directory, a FIFO) is removed and a new regular file is
// created in its place; no link is ever followed, neither at the file nor at any directory
// of name, which may have several elements (".harness/pyclass.py"; missing directories
// are created 0755). A plain os.WriteFile or os.Chmod there would write or chmod through
// the bot's link, as root, wherever it points.
func WriteBotFile(dir, name string, data []byte, mode os.FileMode) error {
	clean := filepath.Clean(name)
	if filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("write bot file %q: not a path inside the bot's directory", name)
	}
	parts := strings.Split(clean, "/")
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write bot file %s: %w", name, err)
	}
	for _, p := range parts[:len(parts)-1] {
		next, err := syscall.Openat(fd, p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
			// Missing, or something else than a directory: make it a directory.
			_ = removeAt(fd, p)
			if err = syscall.Mkdirat(fd, p, 0o755); err == nil || errors.Is(err, syscall.EEXIST) {
				next, err = syscall.Openat(fd, p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			}
		}
		syscall.Close(fd)
		if err != nil {
			return fmt.Errorf("write bot file %s: directory %s: %w", name, p, err)
		}
		fd = next
	}
	defer syscall.Close(fd)
	last := parts[len(parts)-1]
	if err := removeAt(fd, last); err != nil {
		return fmt.Errorf("write bot file %s: remove what was there: %w", name, err)
	}
	ffd, err := syscall.Openat(fd, last, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(mode.Perm()))
	if err != nil {
		return fmt.Errorf("write bot file %s: %w", name, err)
	}
	f := os.NewFile(uintptr(ffd), name)
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode.Perm()) // through the descriptor: the umask does not apply
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write bot file %s: %w", name, err)
	}
	return nil
}

// removeAt removes the entry name of directory fd, whatever it is (a directory with all
// it holds), without following links. A missing entry is not an error.
func removeAt(fd int, name string) error {
	err := unlinkat(fd, name, 0)
	if err == nil || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if !errors.Is(err, syscall.EISDIR) && !errors.Is(err, syscall.EPERM) {
		return err
	}
	sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(sub), name)
	names, err := d.Readdirnames(-1)
	for _, n := range names {
		if rerr := removeAt(sub, n); rerr != nil && err == nil {
			err = rerr
		}
	}
	d.Close()
	if err != nil {
		return err
	}
	if err := unlinkat(fd, name, _AT_REMOVEDIR); err != nil && !errors.Is(err, syscall.ENOENT) {
		return err
	}
	return nil
}

const _AT_REMOVEDIR = 0x200

func unlinkat(dirfd int, name string, flags int) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags))
	if e != 0 {
		return e
	}
	return nil
}

// chownTree makes dir and what the runner wrote in it owned by uid:gid, so that a bot
// switched to that identity can use its directory like a non-root daemon's bot can: write
// its memory files, rewrite the protocol files the runner created. It never follows a
// link: every entry is opened relative to its directory with O_NOFOLLOW and changed
// through that file descriptor, so a bot running meanwhile cannot redirect the change
// elsewhere. Regular files with more than one link are left alone.
func chownTree(dir string, uid, gid int) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	return chownFD(fd, uid, gid, 0)
}

const maxChownDepth = 64

// chownFD changes the open file fd and, for a directory, its entries; it closes fd.
func chownFD(fd, uid, gid, depth int) error {
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if (st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink > 1) ||
		(st.Mode&syscall.S_IFMT != syscall.S_IFREG && st.Mode&syscall.S_IFMT != syscall.S_IFDIR) {
		return nil
	}
	handedOver := int(st.Uid) == uid && int(st.Gid) == gid
	if !handedOver {
		if err := syscall.Fchown(fd, uid, gid); err != nil {
			return err
		}
	}
	// The runner writes at the top of the directory and into directories it made (the
	// harness, interpreter links); a directory the bot made, or one handed over before,
	// holds only the bot's files. Not descending into those keeps a launch cheap when a
	// bot keeps thousands of files (a compiler cache under its HOME).
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || depth >= maxChownDepth || (handedOver && depth > 0) {
		return nil
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
		switch {
		case errors.Is(err, syscall.ELOOP):
			// A symbolic link: change the link itself.
			if err := syscall.Fchownat(fd, name, uid, gid, _AT_SYMLINK_NOFOLLOW); err != nil && !errors.Is(err, syscall.ENOENT) {
				return err
			}
			continue
		case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENXIO):
			continue // gone meanwhile, or a socket
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := chownFD(sub, uid, gid, depth+1); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

const _AT_SYMLINK_NOFOLLOW = 0x100
