"""kothd launcher: starts one-shot bot processes on request, inside the bot's sandbox.

Run as: python3 -I -S -c <boot> --forkserver=on|off --isolation=auto|group <bot command...>, the boot code
reading this file's source from the first line of stdin (runner/sandbox/launcher.go).

The runner starts one launcher per bot, through the bot's sandbox, and asks it for
decisions; a decision runs the bot command plus the decision's arguments once, with the
bot's directory as working directory, and ends when the bot's main process exits.

Protocol, one JSON object per line on the launcher's own stdin/stdout:
  launcher -> runner, once: {"hello": 1, "isolation": "pidns"|"group"}
  runner -> launcher: {"id": n, "args": [...], "timeout": seconds, "cpu": seconds or 0,
                       "nofile": descriptors or 0, "out": stdout byte limit,
                       "discard": bool, "stdin": base64 or absent}
  launcher -> runner: {"id": n, "end": END, "code": exit status, "sig": signal, "errno": n,
                       "out": base64 stdout, "err": stderr tail, "why": text, "ms": n,
                       "run", "wait": ns the main process ran, and the longest any of its threads waited for a CPU (timeout only)}
  (and "forked": true when the fork server started the decision's process: forkclient.py)
END is "exit" (code), "signal" (sig), "timeout", "output" (more than "out" bytes),
"noexec" (the command could not be executed: errno) or "error" (the launcher failed:
why). The reply is written only once no process of the decision is left.

Isolation "pidns" (the normal case). At start the launcher enters a user namespace of its
own (mapping only its own ids) and a PID namespace, and forks the server, which is pid 1
there; the first process only waits for it. For every decision the server starts the bot
(posix_spawn: a vfork and exec; group mode and a bot with its own descriptor limit fork).
When the bot's main process exits (or times out, or overruns its output) the server, as
the namespace's init, kills every other process in it with kill(-1, SIGKILL), whatever
session or group they moved to, and reaps them all, so nothing of a decision outlives it.
The bot cannot signal the server (pid 1 ignores signals from inside its namespace that it
has no handler for, and it has none) or reach the first process (outside the namespace);
it cannot read their memory or descriptors (neither is dumpable), and it holds none of the
protocol or status pipes (they are close-on-exec). So it cannot forge the report of its
own decision, let alone another bot's (each bot has its own launcher).

Isolation "group" (fallback where namespaces are unavailable): the launcher serves
directly. The bot leads its own session; once it exits its group is killed, and the
launcher, a child subreaper, kills every process re-parented to it. A bot can kill or stop
a group-mode launcher; the runner then kills the sandbox and starts a new launcher.

Per-decision limits (CPU time, and open files when the launcher needed more than the
bot may have) are set on the bot's process; the sandbox-wide ones (memory, processes, file
size) were set on the launcher by the sandbox and are inherited.
"""
import base64
import ctypes
import errno
import gc
import json
import os
import resource
import select
import signal
import struct
import sys
import time

CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
PR_SET_CHILD_SUBREAPER = 36
STDERR_TAIL = 2048
CHUNK = 65536
REAP_MS = 20  # pidns: how often orphans are reaped while a decision runs
# posix_spawn failures that say the host is short of something (processes, memory, file
# descriptors), not that the bot's program cannot be executed: the host's fault, as a
# failed fork always was. Anything else (ENOENT, EACCES, ENOEXEC, …) is the bot's.
HOST_SPAWN_ERRORS = frozenset((errno.EAGAIN, errno.ENOMEM, errno.EMFILE, errno.ENFILE))

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


def enter_namespaces():
    """Enter a new user namespace mapping only our own ids (so that the bot, after exec,
    holds no capability) and a new PID namespace for our children."""
    uid, gid = os.geteuid(), os.getegid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWPID)
    _write_file("/proc/self/setgroups", "deny")
    _write_file("/proc/self/uid_map", "%d %d 1" % (uid, uid))
    _write_file("/proc/self/gid_map", "%d %d 1" % (gid, gid))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def apply_seccomp():
    """Apply the bots' seccomp filter, which the runner passes in KOTHD_SECCOMP (base64 of
    a struct sock_filter array): the sandbox's own filter let us make our user namespace,
    this one forbids the bots another (runner/sandbox/seccomp.go). Filters stack: every process
    started from here on is under both. Without the variable (no sandbox) nothing."""
    data = os.environ.pop("KOTHD_SECCOMP", None)
    if data is None:
        return
    prog = base64.b64decode(data)
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = _SockFprog(len(prog) // 8, ctypes.addressof(buf))
    # no_new_privs is set already (bwrap, setpriv), as the kernel requires.
    _call("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_void_p(ctypes.addressof(fprog)), 0, 0)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def close_all(*fds):
    for fd in fds:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


def kill(pid, sig=signal.SIGKILL, group=False):
    try:
        (os.killpg if group else os.kill)(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def children(pid):
    """The live children of pid, found in /proc."""
    kids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[0] != "Z" and int(fields[1]) == pid:
            kids.append(int(name))
    return kids


class Decision:
    """One request and what its processes produced."""

    def __init__(self, req):
        self.req = req
        self.out = bytearray()
        self.err = bytearray()
        self.overrun = False
        self.end = None  # (kind, value): see reply
        self.exec_errno = None  # set when the command could not be executed
        self.pid = 0  # the bot's main process
        self.forked = False  # started by the fork server (forkclient.py)
        self.reported = False  # and the server reported its end (it is idle again)
        self.sched = None  # (run ns, wait ns) of the main process when it timed out


class Launcher:
    def __init__(self, argv, isolation, proto_in, proto_out):
        self.argv = argv
        self.env = dict(os.environb)
        self.isolation = isolation
        self.pid = os.getpid()
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.forks = None  # the fork server's client, when it serves this bot (main)

    def send(self, obj):
        write_all(self.proto_out, (json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def serve(self):
        if self.forks is not None:
            try:
                self.forks.start()
            except ForkDown:
                pass  # tried again at the first decision
        self.send({"hello": 1, "isolation": self.isolation})
        while True:
            line = self.proto_in.readline()
            if not line:
                return
            req = json.loads(line)
            try:
                rep = self.run(req)
            except Exception as e:
                # The launcher's own failure (no descriptor or memory left, …) is the
                # host's, not the bot's: report it, and leave nothing of the decision.
                self.kill_decision(Decision(req))
                rep = self.reply(Decision(req), ("error", "%s: %s" % (type(e).__name__, e)), time.monotonic())
            self.send(rep)

    def run(self, req):
        d = Decision(req)
        start = time.monotonic()
        deadline = start + float(req.get("timeout") or 10)
        limit = int(req.get("out") or 1 << 20)
        stdin = self.stdin_fd(req.get("stdin"))
        out_r, out_w = (None, None) if req.get("discard") else os.pipe()
        err_r, err_w = os.pipe()
        if self.isolation == "pidns" and not int(req.get("nofile") or 0):
            st_r = None
            try:
                d.pid = self.fork(d, req, stdin, out_w, err_w) or self.spawn(req, stdin, out_w, err_w)
            except OSError as e:
                close_all(stdin, out_w, err_w, out_r, err_r)
                if e.errno in HOST_SPAWN_ERRORS:  # no process could be created: not the bot's doing
                    return self.reply(d, ("error", "spawn: %s" % e), start)
                return self.reply(d, ("noexec", e.errno or 0), start)
            close_all(stdin, out_w, err_w)
        else:
            st_r, st_w = os.pipe()  # the bot's process reports a failed exec here
            try:
                d.pid = os.fork()
            except OSError as e:
                close_all(stdin, out_w, err_w, st_w, out_r, err_r, st_r)
                return self.reply(d, ("error", "fork: %s" % e), start)
            if d.pid == 0:
                self.become_bot(req, stdin, out_w, err_w, st_w)
            close_all(stdin, out_w, err_w, st_w)
        self.watch(d, out_r, err_r, st_r, deadline, limit)
        close_all(out_r, err_r, st_r)
        return self.reply(d, d.end, start)

    def stdin_fd(self, data):
        if not data:
            return os.open(os.devnull, os.O_RDONLY)
        fd = os.memfd_create("stdin")
        write_all(fd, base64.b64decode(data))
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def watch(self, d, out_r, err_r, st_r, deadline, limit):
        """Collect output until the bot's main process exits, the deadline passes or the
        output overruns; then kill everything of the decision and drain the pipes."""
        poll = select.poll()
        names = {}
        for fd, what in ((out_r, "out"), (err_r, "err"), (st_r, "st")):
            if fd is not None:
                poll.register(fd, select.POLLIN)
                names[fd] = what
        proto = self.proto_in.fileno()
        poll.register(proto, 0)  # POLLHUP only: the runner went away
        try:
            pidfd = os.pidfd_open(d.pid)
            poll.register(pidfd, select.POLLIN)
        except ProcessLookupError:
            if not d.forked:
                raise
            pidfd = None  # the fork server reaped it already: its report is on the way
        fsock = self.forks.sock.fileno() if d.forked else None
        if fsock is not None:
            poll.register(fsock, select.POLLIN)
        pidns = self.isolation == "pidns"
        forced = None
        while d.end is None and forced is None:
            left = deadline - time.monotonic()
            if left <= 0:
                forced = "timeout"
                break
            wait = int(left * 1000) + 1
            events = poll.poll(min(wait, REAP_MS) if pidns else wait)
            if pidns:
                # Orphans of the bot are the server's children (it is pid 1); zombies count
                # against the bot's process limit, so they are reaped as they come. The
                # bot's main process is reaped here too, which gives its status.
                self.reap(d)
            for fd, _ in events:
                if fd == proto:
                    forced = "gone"
                elif fd == pidfd:
                    if not pidns:
                        d.end = self.main_status(d.pid)
                    elif d.forked:
                        # The main process has exited; its status is the fork server's
                        # to report (fsock). Its pidfd stays readable until the server
                        # reaps it: polled again, it would wake this loop at once, over
                        # and over (28 times per decision), while the server needs the CPU.
                        poll.unregister(pidfd)
                elif fd == fsock:
                    fsock = self.fork_report(d, poll, fsock)
                elif fd in names:
                    chunk = os.read(fd, CHUNK)
                    if not chunk:
                        poll.unregister(fd)
                        continue
                    self.take(d, names[fd], chunk, limit)
                    if d.overrun:
                        forced = "output"
        if pidfd is not None:
            os.close(pidfd)
        if forced == "timeout":
            d.sched = self.sched_of(d.pid)
        self.kill_decision(d)
        # Nothing of the decision is left: what is in the pipes is all there will be.
        for fd, what in names.items():
            while True:
                chunk = os.read(fd, CHUNK)
                if not chunk:
                    break
                self.take(d, what, chunk, limit)
        if forced == "gone":
            sys.exit(0)
        if forced == "timeout":
            d.end = ("timeout", 0)
        if d.exec_errno is not None:
            d.end = ("noexec", d.exec_errno)
        if d.overrun:
            d.end = ("output", 0)

    def take(self, d, what, chunk, limit):
        if what == "out":
            room = limit - len(d.out)
            if len(chunk) > room:
                d.out += chunk[:max(room, 0)]
                d.overrun = True
            else:
                d.out += chunk
        elif what == "err":
            d.err += chunk
            if len(d.err) > STDERR_TAIL:
                del d.err[:len(d.err) - STDERR_TAIL]
        elif len(chunk) >= 4:
            # exec failed; the process exits with 127 next, which must not hide why.
            d.exec_errno = struct.unpack("<i", chunk[:4])[0]

    def sched_of(self, pid):
        """The kernel's count of the time the bot's main process's threads ran (in all) and
        waited for a CPU (the longest of any thread) (/proc/<pid>/task/*/schedstat), read as
        it times out: the runner tells from it whether
        the host kept the bot from a CPU. In pidns mode /proc shows the sandbox's pids, so
        the process is the one whose pid in the launcher's namespace is pid."""
        path = "/proc/%d/schedstat" % pid
        if self.isolation == "pidns":
            path = None
            for name in os.listdir("/proc"):
                if not name.isdigit():
                    continue
                try:
                    with open("/proc/%s/status" % name) as f:
                        ns = next((line.split()[1:] for line in f if line.startswith("NSpid:")), [])
                except OSError:
                    continue
                if len(ns) == 2 and ns[1] == str(pid):
                    path = "/proc/%s/schedstat" % name
                    break
            if path is None:
                return None
        # Every thread of it: a JVM's main thread mostly waits for the others. The run is
        # their sum (the process's CPU), the wait the longest any one of them waited: a sum
        # of waits grows with the number of threads (fifty threads spinning on one CPU
        # "waited" fifty times the decision), which let a bot void the games it chose.
        base = path[:-len("schedstat")] + "task/"
        run = wait = 0
        try:
            for tid in os.listdir(base):
                with open(base + tid + "/schedstat") as f:
                    fields = f.read().split()
                run += int(fields[0])
                wait = max(wait, int(fields[1]))
        except (OSError, ValueError, IndexError):
            return None
        return run, wait

    def reap(self, d):
        """pidns: reap every exited child; note the bot's main process's end."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if self.forks is not None and pid == self.forks.pid:
                self.forks.exited()
            elif pid == d.pid:
                if os.WIFEXITED(status):
                    d.end = ("exit", os.WEXITSTATUS(status))
                else:
                    d.end = ("signal", os.WTERMSIG(status))

    def main_status(self, pid):
        """Group mode: the bot's main process has exited. Its status, read without reaping
        it: its pid is its group's id, which must stay its until the group is killed."""
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        if info is None:
            return None
        if info.si_code == os.CLD_EXITED:
            return ("exit", info.si_status)
        return ("signal", info.si_status)

    def kill_decision(self, d):
        """Kill every process of the decision and reap them all."""
        if self.isolation == "pidns":
            # Every process of the namespace is the server's child or descends from one
            # (orphans are re-parented to pid 1; nothing can join from outside without
            # privilege over the launcher's user namespace, which no bot holds). So once
            # no child is left, reaped or not, nothing of the decision is: the usual end
            # of a decision, and kill(-1), which scans every process of the host, is
            # spared.
            while True:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    return
                if pid == 0:
                    break
                if self.forks is not None and pid == self.forks.pid:
                    self.forks.exited()
            # The fork server reaped the decision's main process before reporting it:
            # with the server the only child left, nothing of the decision is. A forked
            # decision the server did not report (a timeout, a stopped server) could have
            # left its main process unreaped below it: all are killed.
            f = self.forks
            if f is not None and f.sock is not None and (d.reported or not d.forked) and f.only_child():
                return
            # pid 1's kill(-1) reaches every other process of the namespace; forks racing
            # with it fail, as their parents have a fatal signal pending.
            kill(-1)
            if self.forks is not None:
                self.forks.stop()  # killed with the rest: started again at the next decision
            while True:
                try:
                    os.waitpid(-1, 0)
                except ChildProcessError:
                    return
        if d.pid:
            kill(d.pid, group=True)
            kill(d.pid)
            os.waitpid(d.pid, 0)
        # Orphans of the decision were re-parented to the launcher (a subreaper).
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                continue
            for kid in children(self.pid):
                kill(kid, group=True)
                kill(kid)
            time.sleep(0.001)

    def reply(self, d, end, start):
        kind, value = end
        r = {"id": d.req.get("id"), "end": kind, "code": 0, "sig": 0, "errno": 0,
             "out": base64.b64encode(bytes(d.out)).decode("ascii"),
             "err": bytes(d.err).decode("utf-8", "replace"),
             "ms": int((time.monotonic() - start) * 1000)}
        if d.sched is not None:
            r["run"], r["wait"] = d.sched
        if d.forked:
            r["forked"] = True
        if kind == "exit":
            r["code"] = value
        elif kind == "signal":
            r["sig"] = value
        elif kind == "noexec":
            r["errno"] = value
            r["why"] = os.strerror(value)
        elif kind == "error":
            r["why"] = value
        return r

    def fork(self, d, req, stdin, out_w, err_w):
        """pidns: have the fork server fork the decision's process (forkclient.py); its pid,
        or 0 when it is to be spawned."""
        if self.forks is None or not self.forks.usable():
            return 0
        cpu = int(req.get("cpu") or 0)
        try:
            pid = self.forks.spawn([str(a) for a in req.get("args") or []], stdin, out_w, err_w, cpu)
        except ForkDown:
            return 0
        d.forked = True
        if cpu > 0:
            try:
                resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu + 1))
            except OSError:
                pass  # it has already exited
        return pid

    def fork_report(self, d, poll, fsock):
        """The fork server's socket is readable: note the decision's end it reports. When
        the server is lost, the main process, if still running, is re-parented to pid 1,
        which reaps it; if it is gone and its status with it, it was killed. Returns the
        socket to keep polling, or None."""
        end = self.forks.status(d.pid)
        if end is None:
            return fsock
        poll.unregister(fsock)
        if end != "lost":
            d.end, d.reported = end, True
            return None
        self.reap(d)
        if d.end is None:
            try:
                os.kill(d.pid, 0)
            except ProcessLookupError:
                d.end = ("signal", signal.SIGKILL)
                d.err += b"\nkothd: the fork server running the decision died\n"
        return None

    def spawn(self, req, stdin, out_w, err_w):
        """pidns: start the bot's process with posix_spawn (a vfork and exec, in C). A fork
        copies the launcher's page tables and its child, running Python until the exec,
        writes to (and so copies) many of the launcher's pages: several milliseconds of CPU
        per decision, more than a small bot takes. The PID namespace makes the death signal
        of become_bot needless; the descriptors above 2 are all close-on-exec. RLIMIT_CPU
        is set just after the exec: the bot's CPU time counts from its start all the same,
        and a child it forks in its first instants still dies with the decision and is
        charged to it by the sandbox's cgroup. An exec failure raises OSError here."""
        argv = self.argv + [str(a) for a in req.get("args") or []]
        out = out_w
        if out is None:
            out = os.open(os.devnull, os.O_WRONLY)
        try:
            pid = os.posix_spawnp(
                argv[0], argv, self.env,
                file_actions=[(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, out, 1),
                              (os.POSIX_SPAWN_DUP2, err_w, 2)],
                setsid=True,
                # Ignored dispositions survive exec (see become_bot).
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT))
        finally:
            if out_w is None:
                os.close(out)
        cpu = int(req.get("cpu") or 0)
        if cpu > 0:
            try:
                resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu + 1))
            except OSError:
                pass  # it has already exited
        return pid

    def become_bot(self, req, stdin, out_w, err_w, st_w):
        """In the forked child: become the bot's process. Never returns."""
        try:
            os.setsid()
            if self.isolation == "group":
                # Should the bot kill the launcher, its main process dies with it (the
                # sandbox takes the rest; without a sandbox the rest is left).
                _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                if os.getppid() != self.pid:
                    os._exit(127)
            cpu = int(req.get("cpu") or 0)
            if cpu > 0:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            nofile = int(req.get("nofile") or 0)
            if nofile > 0:
                # The launcher was given more descriptors than the bot may have.
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            if out_w is None:
                out_w = os.open(os.devnull, os.O_WRONLY)
            os.dup2(stdin, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            # Only 0-2 and the exec-error pipe (close-on-exec, now 3) stay open: a low
            # descriptor limit must leave the bot its descriptors, and exec a free one.
            if st_w != 3:
                os.dup2(st_w, 3, inheritable=False)
                st_w = 3
            os.closerange(4, 1 << 16)
            # Ignored dispositions survive exec, and Python ignores SIGPIPE and SIGXFSZ: a
            # bot must meet a closed pipe and RLIMIT_FSIZE as signals, as if run directly.
            for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
                signal.signal(s, signal.SIG_DFL)
            argv = self.argv + [str(a) for a in req.get("args") or []]
            os.execvpe(argv[0], argv, self.env)
        except OSError as e:
            try:
                write_all(st_w, struct.pack("<i", e.errno or 0))
            finally:
                os._exit(127)
        except BaseException:
            pass
        os._exit(127)


def main():
    args = sys.argv[1:]
    forks = True  # before --isolation, which the sandbox expects just before the command
    if args and args[0].startswith("--forkserver="):
        forks = args.pop(0).split("=", 1)[1] == "on"
    want = "auto"
    if args and args[0].startswith("--isolation="):
        want = args.pop(0).split("=", 1)[1]
    # Descriptors inherited from whatever started us must not reach a bot.
    os.closerange(3, 1 << 16)
    # The protocol gets private, close-on-exec copies of stdin and stdout; stray output
    # of the launcher's own code goes nowhere.
    proto_in, proto_out = os.fdopen(os.dup(0), "rb"), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    if not args:
        write_all(proto_out, b'{"error":"no bot command"}\n')
        return 2

    isolation, why = "group", "asked for"
    if want != "group":
        try:
            enter_namespaces()
            isolation = "pidns"
        except OSError as e:
            why = str(e)
    # After the namespaces, before anything of a bot runs. A launcher that cannot apply
    # the filter must not start bots: it fails, and the runner counts a host fault.
    try:
        apply_seccomp()
    except OSError as e:
        write_all(proto_out, (json.dumps({"error": "seccomp: %s" % e}) + "\n").encode())
        return 2
    if isolation == "group":
        _call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        sys.stderr.write("launcher: isolation group (%s)\n" % why)
    # Not dumpable: a bot running as the same user cannot ptrace the launcher or open its
    # /proc entries (memory, descriptors). Set after the id maps, which the process
    # writes through its own /proc entries.
    _call("prctl", PR_SET_DUMPABLE, 0, 0, 0, 0)

    if isolation == "pidns":
        # The server shares the first process's pages until it writes to them; a garbage
        # collection touching every object would copy them all (each copy a page fault
        # and a TLB flush). Frozen objects are never collected, so never touched.
        gc.freeze()
        server = os.fork()  # pid 1 of the new namespace
        if server != 0:
            # The first process stays, so that the sandbox (which ends when its first
            # process does) lives as long as the server; it holds no protocol pipe.
            proto_in.close()
            os.close(proto_out)
            while True:
                try:
                    _, status = os.waitpid(server, 0)
                    break
                except ChildProcessError:
                    return 1
            return os.waitstatus_to_exitcode(status) & 0xFF
        # Dies with the first process (killed by the runner: the namespace goes too).
        _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # As pid 1 it receives from inside only signals it handles: it must handle none.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    launcher = Launcher(args, isolation, proto_in, proto_out)
    if forks and isolation == "pidns" and "ForkServer" in globals():
        try:
            plan = ForkServer.serves(args, launcher.env)
            if plan is not None:
                launcher.forks = ForkServer(args, plan, launcher.env)
        except OSError:
            pass  # no /proc to find our children in: every decision is spawned
    launcher.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
