"""kothd launcher, the fork server's client: runs a Python bot's decisions by forking an
idle interpreter (forkserver.py, FORKSERVER_SOURCE) instead of starting one.

Prepended to launcher.py by runner/sandbox/launcher.go. Used in pidns isolation only, for
a bot command of the form `PYTHON SCRIPT` whose PYTHON is the launcher's own interpreter
(same file once resolved) and whose SCRIPT is a readable file; anything else, a decision
that needs its own descriptor limit, and every decision after the server failed to start
three times, is spawned as before.

The server is a child of the launcher's server (pid 1), started with the bot's
environment and working directory, in its own session; the decision's process is the
server's child, reaped by it and reported over the socket. A bot can kill or stop the
server (it is an ordinary process of the same user), or, as it is dumpable, rewrite it
through /proc where the kernel lets a process of the same user do so: it then only
reaches its own decisions. A dead server is noticed (its socket closes, pid 1 reaps it)
and started again at the next decision; a report that is not one ("garbage") kills it.
The decision's main process then ends as it does (re-parented to pid 1, which reaps it)
or, when its status is lost, as killed.
"""
import re
import socket

FORK_BOOT = ("import sys;M=set(sys.modules);import _socket;S=_socket.socket(fileno=3);"
             "exec(S.recv(1<<20),{'M':M,'S':S,'_socket':_socket})")
FORK_START_S = 10  # how long the server may take to start
FORK_REPLY_S = 5  # how long it may take to fork
FORK_MAX_ARGV = 1 << 19  # larger argv are spawned (the server reads 1 MiB messages)
# The `run` script the dirfiles protocol writes for an answer without one
# (runner/protocol/dirfiles/adapter.go): the shell execs `PYTHON SCRIPT`.
# (runner/protocol/dirfiles/adapter.go quotes each word), or the same unquoted as answers
# write it: words of characters the shell expands nothing in.
RUN_SCRIPT = re.compile(rb"#!/bin/sh\nexec ('?)([A-Za-z0-9_./+-]+)\1 ('?)([A-Za-z0-9_./+-]+)\3\n\Z")


class ForkDown(Exception):
    """The fork server could not serve this decision: spawn it instead."""


def _outer_pid(pid):
    """The pid under which /proc (the sandbox's PID namespace) shows our namespace's pid."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/status" % name) as f:
                ns = next((line.split()[1:] for line in f if line.startswith("NSpid:")), [])
        except OSError:
            continue
        if len(ns) >= 2 and ns[-1] == str(pid):
            return int(name)
    return 0


class ForkServer:
    def __init__(self, argv, env):
        """argv: what serves returned; env: the bot's environment."""
        self.argv, self.run = argv
        self.env = dict(env)
        if self.run is not None:
            # Under `run`, the interpreter sees the environment the shell exports.
            self.env.setdefault(b"PWD", os.fsencode(os.getcwd()))
        self.sock = None
        self.pid = 0
        self.outer = 0
        self.failures = 0
        self.me = int(os.readlink("/proc/self"))
        self.kids = "/proc/%d/task/%d/children" % (self.me, self.me)

    @staticmethod
    def serves(argv):
        """What the server runs for the bot command argv, (`PYTHON SCRIPT`, run) with PYTHON
        this interpreter, or None. argv is that command itself (run None) or ./run, a shell
        script that execs it (run: its path and text, checked at every decision)."""
        run = None
        if argv == ["./run"]:
            try:
                with open("run", "rb") as f:
                    text = f.read(4096)
            except OSError:
                return None
            m = RUN_SCRIPT.match(text)
            if m is None:
                return None
            run, argv = text, [os.fsdecode(m.group(2)), os.fsdecode(m.group(4))]
        if not ForkServer.python(argv):
            return None
        return argv, run

    @staticmethod
    def python(argv):
        """Whether argv is `PYTHON SCRIPT` with PYTHON this interpreter."""
        if len(argv) != 2 or argv[1].startswith("-") or not os.path.isfile(argv[1]) or not os.access(argv[1], os.R_OK):
            return False
        exe = argv[0]
        if "/" not in exe:
            for d in os.environ.get("PATH", "").split(":"):
                p = os.path.join(d or ".", exe)
                if os.access(p, os.X_OK) and os.path.isfile(p):
                    exe = p
                    break
            else:
                return False
        try:
            return os.path.samefile(exe, sys.executable)
        except OSError:
            return False

    def usable(self):
        return self.failures < 3 and os.path.exists(self.kids)

    def start(self):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        devnull = os.open(os.devnull, os.O_RDONLY)
        try:
            # stdout and stderr go to the launcher's stderr: a pipe, as a bot's stdout is,
            # so that the interpreter's stdio objects, made at its start, are alike.
            self.pid = os.posix_spawnp(
                self.argv[0], [self.argv[0], "-c", FORK_BOOT], self.env,
                file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, 2, 1),
                              (os.POSIX_SPAWN_DUP2, b.fileno(), 3)],
                setsid=True, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT))
        except OSError:
            a.close()
            self.failures += 1
            raise ForkDown("spawn")
        finally:
            os.close(devnull)
            b.close()
        self.sock = a
        try:
            a.send(FORKSERVER_SOURCE.encode())
            if self.recv(FORK_START_S) != b"R":
                raise ForkDown("no greeting")
        except (OSError, ForkDown):
            self.failures += 1
            self.stop()
            raise ForkDown("start")
        self.outer = _outer_pid(self.pid)
        if not self.outer:
            self.failures += 1
            self.stop()
            raise ForkDown("not in /proc")
        self.failures = 0

    def recv(self, timeout):
        p = select.poll()
        p.register(self.sock, select.POLLIN)
        if not p.poll(int(timeout * 1000)):
            raise ForkDown("no reply")
        return self.sock.recv(64)

    def pending(self):
        p = select.poll()
        p.register(self.sock, select.POLLIN)
        return bool(p.poll(0))

    def spawn(self, args, stdin, out_w, err_w):
        """Fork the decision's process; its pid. ForkDown: spawn it instead."""
        if self.run is not None:
            args = []  # the script's exec line passes none of its own
        argv = [os.fsencode(a) for a in self.argv + args]
        msg = b"\0".join(argv)
        if any(b"\0" in a for a in argv) or len(msg) > FORK_MAX_ARGV:
            raise ForkDown("argv")
        if self.run is not None:
            # The bot may have rewritten its `run`.
            try:
                with open("run", "rb") as f:
                    if f.read(4096) != self.run:
                        raise ForkDown("run changed")
            except OSError:
                raise ForkDown("run unreadable")
        if self.sock is not None and self.pending():
            # Between decisions the server says nothing: a message now was forged by a bot
            # that took the socket, maybe for the next decision's pid. Start afresh.
            self.stop()
        if self.sock is None:
            self.start()
        out = out_w if out_w is not None else os.open(os.devnull, os.O_WRONLY)
        try:
            socket.send_fds(self.sock, [msg], [stdin, out, err_w])
            rep = self.recv(FORK_REPLY_S)
            if not rep.startswith(b"P"):
                raise ForkDown("reply %r" % rep[:20])
            return int(rep[1:])
        except (OSError, ValueError, ForkDown):
            self.stop()
            raise ForkDown("fork")
        finally:
            if out_w is None:
                os.close(out)

    def status(self, pid):
        """Read the server's report on decision pid: ("exit"|"signal", value), None when
        the report is yet to come, or "lost" (the server died or said something else: it
        is killed)."""
        if self.sock is None:
            return "lost"  # pid 1 reaped it already
        try:
            msg = self.sock.recv(64)
            tag, rest = msg[:1], msg[1:].split()
            if tag == b"S" and len(rest) == 2 and int(rest[0]) == pid:
                status = int(rest[1])
                if os.WIFEXITED(status):
                    return ("exit", os.WEXITSTATUS(status))
                if os.WIFSIGNALED(status):
                    return ("signal", os.WTERMSIG(status))
        except (OSError, ValueError):
            pass
        self.stop()
        return "lost"

    def only_child(self):
        """Whether the server is the only process of the namespace besides pid 1 (its own
        child, the decision's main process, it has reaped before reporting)."""
        try:
            with open(self.kids) as f:
                return f.read().split() == [str(self.outer)]
        except OSError:
            return False

    def exited(self):
        """pid 1 reaped the server."""
        self.pid = 0
        self.close()

    def stop(self):
        """Kill the server (pid 1 reaps it with the decision's processes)."""
        if self.pid:
            kill(self.pid)
            self.pid = 0
        self.close()

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None
