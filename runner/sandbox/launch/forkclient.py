"""kothd launcher, the fork server's client: runs a Python bot's decisions by forking an
idle interpreter (forkserver.py, FORKSERVER_SOURCE; forkserver2.py, FORKSERVER2_SOURCE, for
Python 2.7) instead of starting one.

Prepended to launcher.py by runner/sandbox/launcher.go. Used in pidns isolation only, for
a bot whose program comes down to `PYTHON SCRIPT` with PYTHON a host interpreter it can
serve: the launcher's own (same file once resolved: Python 3) or a Python 2.7 the bot
cannot write to. The forms recognised (Plan.of) are the bot command itself, and a `run`
script of one line (#!/bin/sh or #!/bin/bash) that runs, with or without `exec`, either
`PYTHON SCRIPT` or `./SCRIPT` whose #! line names PYTHON (directly or through
/usr/bin/env), with at most the redirections `< FILE` and `> FILE`; an interpreter found
through PATH may be one of the shims the dirfiles protocol installs (`exec 'PYTHON' "$@"`).
Anything else, a decision that needs its own descriptor limit, and every decision after
the server failed to start three times, is spawned as before. What the shells and env
would have done on the way is done here: the environment they export (PWD; bash's SHLVL
and `_`), the redirections (opened by the launcher, as the shell opens them, before the
fork), and the exit status of a script the shell waits for (128+n for a signal).

The server is a child of the launcher's server (pid 1), started with the bot's
environment and working directory, in its own session; the decision's process is the
server's child, reaped by it and reported over the socket. A bot can kill or stop the
server (it is an ordinary process of the same user), or, as it is dumpable, rewrite it
through /proc where the kernel lets a process of the same user do so: it then only
reaches its own decisions. A dead server is noticed (its socket closes, pid 1 reaps it)
and started again at the next decision; a report that is not one ("garbage") kills it.
The decision's main process then ends as it does (re-parented to pid 1, which reaps it)
or, when its status is lost, as killed. A `run` form is resolved again at every decision
(the bot may rewrite any file of it): a different plan restarts the server, none spawns.
"""
import re
import socket
import stat

FORK_BOOT = ("import sys;M=set(sys.modules);import _socket;S=_socket.socket(fileno=3);"
             "exec(S.recv(1<<20),{'M':M,'S':S,'_socket':_socket})")
# Python 2's socket takes no descriptor: fromfd duplicates it (os is imported at 2.7's
# start already).
FORK_BOOT2 = ("import sys;M=set(sys.modules);import _socket,os;S=_socket.fromfd(3,1,5);os.close(3);"
              "exec(S.recv(1<<20),{'M':M,'S':S,'_socket':_socket})")
FORK_START_S = 10  # how long the server may take to start
FORK_REPLY_S = 5  # how long it may take to fork
FORK_MAX_ARGV = 1 << 19  # larger argv are spawned (the server reads 1 MiB messages)
# A `run` script's words: characters the shell expands nothing in, bare or in single
# quotes (runner/protocol/dirfiles/adapter.go quotes each word of the run it writes).
RUN_TOKEN = re.compile(rb" *('[A-Za-z0-9_./+-]+'|[A-Za-z0-9_./+-]+|<|>)")
# The interpreter shims of runner/protocol/dirfiles (InstallShims), exactly.
SHIM = re.compile(rb"#!/bin/sh\nexec '(/[A-Za-z0-9_./+-]+)' \"\$@\"\n\Z")
PYTHON2 = re.compile(r"python2(\.7)?\Z")


class ForkDown(Exception):
    """The fork server could not serve this decision: spawn it instead."""


def _read_head(path, n=4096):
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return None


def _lookup(name, path_var):
    """The file the shell (or env) executes for name: name itself when it has a slash,
    else the first executable regular file of that name along PATH; and the path it
    names it by (bash's `_`). (None, None) when none."""
    if "/" in name:
        return (name, name) if os.path.isfile(name) and os.access(name, os.X_OK) else (None, None)
    for d in path_var.split(":"):
        p = os.path.join(d or ".", name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p, p
    return None, None


def flavor(exe):
    """3 for this launcher's own interpreter, 2 for a Python 2.7 the bot cannot have
    written (not its own, not writable: a host interpreter), else None."""
    try:
        if os.path.samefile(exe, sys.executable):
            return 3
        real = os.path.realpath(exe)
        st = os.stat(real)
    except OSError:
        return None
    if PYTHON2.match(os.path.basename(real)) and st.st_uid != os.getuid() and not os.access(real, os.W_OK):
        return 2
    return None


class Plan:
    """How a decision runs when forked: the server's flavor (2 or 3), its interpreter file
    and the argv it runs (interpreter as named, script, arguments), the variables the
    shells on the way add to the environment, the redirections, and whether a shell waits
    for the interpreter (its exit status then stands for a signal's)."""

    def __init__(self, flavor, exe, argv, env=(), stdin=None, stdout=None, waited=False, run=False):
        self.flavor, self.exe, self.argv = flavor, exe, list(argv)
        self.env = tuple(sorted(env))
        self.stdin, self.stdout, self.waited, self.run = stdin, stdout, waited, run

    def key(self):
        return (self.flavor, self.exe, tuple(self.argv), self.env, self.stdin, self.stdout, self.waited, self.run)

    def __eq__(self, other):
        return isinstance(other, Plan) and self.key() == other.key()

    def __ne__(self, other):
        return not self == other

    @staticmethod
    def of(argv, env):
        """The plan for bot command argv with environment env (bytes keys), or None."""
        if Plan.user_site(env):
            return None
        if argv == ["./run"]:
            return Plan.of_run(env)
        return Plan.interpreter(argv, os.fsdecode(env.get(b"PATH", b"")))

    @staticmethod
    def user_site(env):
        """Whether the interpreter's start would read the user's site directory (under
        HOME, the bot's own directory: ~/.local/lib/pythonX.Y/site-packages, its .pth files
        and usercustomize run at every start). A server started once would have run them
        once, or, for one the bot makes later, never: such a bot is launched plainly."""
        if env.get(b"PYTHONNOUSERSITE"):
            return False
        base = env.get(b"PYTHONUSERBASE")
        if not base:
            home = env.get(b"HOME")
            if not home:
                return False
            base = os.path.join(home, b".local")
        return os.path.isdir(base)

    @staticmethod
    def interpreter(words, path_var):
        """`PYTHON SCRIPT` as executed (execvp when PYTHON has no slash): its plan, whose
        `named` is the file executed as bash names it (its `_`), or None. A shim found for
        PYTHON is followed to the interpreter it execs."""
        if len(words) != 2 or words[1].startswith("-") or not os.path.isfile(words[1]) or not os.access(words[1], os.R_OK):
            return None
        found, named = _lookup(words[0], path_var)
        if found is None:
            return None
        argv0, exe = words[0], found
        m = SHIM.match(_read_head(found) or b"")
        if m is not None:
            argv0 = exe = os.fsdecode(m.group(1))
        fl = flavor(exe)
        if fl is None:
            return None
        plan = Plan(fl, exe, [argv0, words[1]])
        plan.named = named
        return plan

    @staticmethod
    def of_run(env):
        """./run: a one-line shell script of the forms the module's doc lists."""
        text = _read_head("run")
        if text is None or not os.access("run", os.X_OK):
            return None
        shell, nl, line = text.partition(b"\n")
        if shell not in (b"#!/bin/sh", b"#!/bin/bash") or not nl:
            return None
        if line.endswith(b"\n"):
            line = line[:-1]
        line = line.rstrip(b" ")
        if b"\n" in line or len(text) >= 4096:
            return None
        toks, at = [], 0
        while at < len(line):
            m = RUN_TOKEN.match(line, at)
            if m is None:
                return None
            toks.append(m.group(1))
            at = m.end()
        execs = toks[:1] == [b"exec"]
        if execs:
            toks = toks[1:]
        words, redir = [], {}
        i = 0
        while i < len(toks):
            t = toks[i]
            if t in (b"<", b">"):
                if t in redir or i + 1 >= len(toks) or toks[i + 1] in (b"<", b">"):
                    return None
                redir[t] = os.fsdecode(toks[i + 1].strip(b"'"))
                i += 2
                continue
            if redir:
                return None  # a word after a redirection: not one of the forms
            words.append(os.fsdecode(t.strip(b"'")))
            i += 1
        path_var = os.fsdecode(env.get(b"PATH", b""))
        if len(words) == 2:
            plan = Plan.interpreter(words, path_var)
        elif len(words) == 1 and "/" in words[0]:
            plan = Plan.script(words[0], path_var)
        else:
            plan = None
        if plan is None:
            return None
        extra = [(b"PWD", env.get(b"PWD", os.fsencode(os.getcwd())))]
        if shell == b"#!/bin/bash":
            lvl = env.get(b"SHLVL", b"0")
            n = int(lvl) if lvl.isdigit() and len(lvl) < 9 else 0
            # bash counts itself; `exec` gives its level back; `_` names what it ran.
            extra.append((b"SHLVL", b"%d" % (n + (0 if execs else 1))))
            if not execs:
                extra.append((b"_", os.fsencode(plan.named)))
        return Plan(plan.flavor, plan.exe, plan.argv, extra, redir.get(b"<"), redir.get(b">"), not execs, True)

    @staticmethod
    def script(path, path_var):
        """`./SCRIPT` run by its #! line: `#!/usr/bin/env NAME` or `#!PYTHON`, nothing
        more on it."""
        if not os.path.isfile(path) or not os.access(path, os.X_OK | os.R_OK):
            return None
        head = (_read_head(path, 256) or b"").split(b"\n", 1)[0]
        if not head.startswith(b"#!") or b"\r" in head or b"\t" in head:
            return None
        parts = head[2:].strip(b" ").split(b" ")
        if len(parts) == 2 and parts[0] == b"/usr/bin/env" and parts[1] and not parts[1].startswith(b"-"):
            plan = Plan.interpreter([os.fsdecode(parts[1]), path], path_var)
        elif len(parts) == 1 and parts[0].startswith(b"/"):
            exe = os.fsdecode(parts[0])
            fl = flavor(exe)
            plan = Plan(fl, exe, [exe, path]) if fl is not None else None
        else:
            plan = None
        if plan is not None:
            plan.named = path
        return plan


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
    def __init__(self, command, plan, env):
        """command: the bot command; plan: Plan.of it; env: the bot's environment."""
        self.command = command
        self.plan = plan
        self.base_env = dict(env)
        self.sock = None
        self.pid = 0
        self.outer = 0
        self.failures = 0
        self.me = int(os.readlink("/proc/self"))
        self.kids = "/proc/%d/task/%d/children" % (self.me, self.me)

    @staticmethod
    def serves(argv, env):
        """The plan the server runs the bot command argv by, or None."""
        return Plan.of(argv, env)

    def usable(self):
        return self.failures < 3 and os.path.exists(self.kids)

    def start(self):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        devnull = os.open(os.devnull, os.O_RDONLY)
        # stdout and stderr go to the launcher's stderr: a pipe, as a bot's stdout is, so
        # that the interpreter's stdio objects, made at its start, are alike (Python 3's
        # remember whether their file could seek). A `> FILE` stdout is a regular file:
        # the server's is then an empty one of its own (a memfd), for the same reason.
        out = os.memfd_create("stdout") if self.plan.stdout is not None else 2
        try:
            env = dict(self.base_env)
            env.update(self.plan.env)
            self.pid = os.posix_spawn(
                self.plan.exe, [self.plan.argv[0], "-c", FORK_BOOT if self.plan.flavor == 3 else FORK_BOOT2], env,
                file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, out, 1),
                              (os.POSIX_SPAWN_DUP2, b.fileno(), 3)],
                setsid=True, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT))
        except OSError:
            a.close()
            self.failures += 1
            raise ForkDown("spawn")
        finally:
            os.close(devnull)
            if out != 2:
                os.close(out)
            b.close()
        self.sock = a
        try:
            a.send((FORKSERVER_SOURCE if self.plan.flavor == 3 else FORKSERVER2_SOURCE).encode())
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

    def spawn(self, args, stdin, out_w, err_w, cpu=0):
        """Fork the decision's process (CPU limit: cpu seconds, 0 none); its pid. ForkDown:
        spawn it instead."""
        if self.plan.run:
            # The bot may have rewritten `run` or anything it runs: the plan is made anew.
            plan = Plan.of(self.command, self.base_env)
            if plan is None:
                raise ForkDown("not served")
            if plan != self.plan:
                self.stop()
                self.plan = plan
            args = []  # the script's line passes none of its own
        argv = [os.fsencode(a) for a in self.plan.argv + args]
        msg = b"\0".join([b"w%d" % max(cpu, 0) if self.plan.waited else b""] + argv)
        if any(b"\0" in a for a in argv) or len(msg) > FORK_MAX_ARGV:
            raise ForkDown("argv")
        if self.sock is not None and self.pending():
            # Between decisions the server says nothing: a message now was forged by a bot
            # that took the socket, maybe for the next decision's pid. Start afresh.
            self.stop()
        if self.sock is None:
            self.start()
        opened = []
        try:
            # As the shell opens them, in turn (a failure is left to the shell).
            if self.plan.stdin is not None:
                stdin = self.redirect(self.plan.stdin, os.O_RDONLY)
                opened.append(stdin)
            if self.plan.stdout is not None:
                out_w = self.redirect(self.plan.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                opened.append(out_w)
            elif out_w is None:
                out_w = os.open(os.devnull, os.O_WRONLY)
                opened.append(out_w)
        except BaseException:
            for fd in opened:
                os.close(fd)
            raise
        try:
            socket.send_fds(self.sock, [msg], [stdin, out_w, err_w])
            rep = self.recv(FORK_REPLY_S)
            if not rep.startswith(b"P"):
                raise ForkDown("reply %r" % rep[:20])
            return int(rep[1:])
        except (OSError, ValueError, ForkDown):
            self.stop()
            raise ForkDown("fork")
        finally:
            for fd in opened:
                os.close(fd)

    @staticmethod
    def redirect(name, flags):
        """The shell's `< name` or `> name`, opened as it opens them. Anything but a regular
        file (a FIFO would block the launcher, a device is the bot's own business) or a
        failure is left to the shell: ForkDown."""
        try:
            st = os.stat(name)
            if not stat.S_ISREG(st.st_mode):
                raise ForkDown("redirect")
        except FileNotFoundError:
            if not flags & os.O_CREAT:
                raise ForkDown("redirect")
        except OSError:
            raise ForkDown("redirect")
        try:
            fd = os.open(name, flags | os.O_NONBLOCK, 0o666)
        except OSError:
            raise ForkDown("redirect")
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ForkDown("redirect")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

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
