"""kothd mount holder: keeps the bots' bounded directories (tmpfs mounts) in a mount
namespace of its own, outside every sandbox (runner/sandbox/botfs.go).

Run as: python3 -I -S -c <this source> root|user. It never runs bot code and bots cannot
reach it (it lives outside their PID namespaces).

At start it leaves the daemon's mount namespace: with "root" (the daemon is root) for a new
mount namespace only; with "user" (an unprivileged daemon) for a new user namespace that
maps only its own ids, which gives it the right to mount there, and a new mount namespace
owned by it. Every mount is made a slave, so nothing mounted here reaches the host, and
the mounts all vanish with the namespace when this process dies: a killed daemon leaves no
stale mount behind. The daemon reaches the mounts through /proc/<pid>/root, and starts
each sandbox inside this namespace (nsenter), where bwrap binds them.

Protocol, one JSON object per line on stdin/stdout:
  holder -> daemon, once: {"hello": 1}
  daemon -> holder: {"op": "mount", "path": P, "bytes": N, "inodes": M}
                    {"op": "umount", "path": P}
  holder -> daemon: {"ok": true} or {"error": text}
It exits when its stdin closes (the daemon is gone).
"""
import ctypes
import json
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_NOSUID = 2
MS_NODEV = 4
MS_REC = 16384
MS_SLAVE = 1 << 19
MNT_DETACH = 2
UMOUNT_NOFOLLOW = 8

_libc = ctypes.CDLL(None, use_errno=True)


def _call(name, *args):
    if getattr(_libc, name)(*args) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (name, os.strerror(e)))


def _write_file(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter(mode):
    if mode == "user":
        uid, gid = os.geteuid(), os.getegid()
        _call("unshare", CLONE_NEWUSER | CLONE_NEWNS)
        _write_file("/proc/self/setgroups", "deny")
        _write_file("/proc/self/uid_map", "%d %d 1" % (uid, uid))
        _write_file("/proc/self/gid_map", "%d %d 1" % (gid, gid))
    else:
        _call("unshare", CLONE_NEWNS)
    _call("mount", b"none", b"/", None, MS_REC | MS_SLAVE, None)


def serve(req):
    path = req["path"]
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError("path must be absolute")
    if req["op"] == "mount":
        # size and nr_inodes are the allowance; mode 0755 like a directory the daemon
        # makes. nosuid, nodev: nothing there may gain privilege. Bots run their own
        # compiled programs from there, so not noexec.
        opts = "size=%d,nr_inodes=%d,mode=0755" % (int(req["bytes"]), int(req["inodes"]))
        _call("mount", b"kothd-bot", path.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode())
    elif req["op"] == "umount":
        _call("umount2", path.encode(), MNT_DETACH | UMOUNT_NOFOLLOW)
    else:
        raise ValueError("unknown op %r" % (req["op"],))


def main():
    try:
        enter(sys.argv[1])
    except OSError as e:
        sys.stdout.write(json.dumps({"hello": 0, "error": str(e)}) + "\n")
        sys.stdout.flush()
        return
    sys.stdout.write('{"hello": 1}\n')
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            serve(json.loads(line))
            reply = {"ok": True}
        except (OSError, ValueError, KeyError, TypeError) as e:
            reply = {"error": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
