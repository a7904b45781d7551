"""kothd fork server for Python 2.7 bots: forkserver.py's twin, in the language of 2.7.

Started by the launcher (forkclient.py) as the bot's Python 2.7 interpreter with only
`-c FORK_BOOT2`, the boot reading this source from descriptor 3 (a SOCK_SEQPACKET socket
to the launcher). The boot records the modules the interpreter started with (M) and
imports only _socket. Python 2 has no recvmsg: this program imports ctypes to call libc's;
every module it adds is gone from sys.modules in the decision's process, as in the Python 3
server.

The protocol is forkserver.py's (one message each):
  launcher -> server: NUL-separated mode ("", or "w<CPU seconds>" when a shell waits
                      for the interpreter: see shell) and argv (interpreter, script, arguments...) with three
                      descriptors (SCM_RIGHTS): the decision's stdin, stdout and stderr.
  server -> launcher: "R" once ready; "P<pid>" once the decision's process has the
                      message (it was forked ahead and reads it: forkahead.py); "E" for a
                      message that is no decision's; "S<pid> <wait status>" once it has
                      exited (the server reaps it).
The decision's process becomes `python2.7 script args...` as 2.7 starts a script (see
become); what differs from the Python 3 server is 2.7's: __file__ and tracebacks name the
script as given, sys.path[0] is its directory with symbolic links resolved, an uncaught
KeyboardInterrupt exits with status 1, exit handlers run through sys.exitfunc.
"""
import os
import sys

# forkserver.py's warm modules, for 2.7: imported before anything else of the server's.
# Not time: Python 3 has it from its start, but 2.7's first import reads TZ into
# time.timezone and time.tzname, and a script may set TZ before it imports time (2.7 keeps
# a C module's first state: not even a real import again would read it afresh).
WARM = ("re", "json", "random", "collections", "functools", "string", "copy", "heapq",
        "bisect", "math", "itertools", "operator")


class Warm(object):
    """forkserver.py's Warm in 2.7, where the import is C code without a _find_and_load of
    Python's to stand in for: the decision's process imports the warm modules through a
    finder first in sys.meta_path (empty at 2.7's start), the one difference a script can
    see (docs/trust.md). 2.7's imports inside a package try the package's own module first
    and leave a None in sys.modules for each name that is not one (json.re): those go in
    with their package."""

    # forkserver.py's tables: entries other modules' imports make, each given with the
    # import that made it (2.7's re and copy_reg are modules of the interpreter's start).
    TABLES = (("re", "_cache"), ("copy_reg", "dispatch_table"), ("sys", "path_importer_cache"))
    MISSING = object()  # no entry, where None is one

    def __init__(self, names):
        path, sys.path[:] = sys.path[:], sys.path[1:]  # not the bot's directory
        before = set(sys.modules)
        # The finders of the interpreter's start: those made since (the boot's for "", the
        # warm imports', ctypes') are not in a decision's process until its imports make them.
        self.finders = set(sys.path_importer_cache) - set([""])
        tables = dict((t, set(self.table(t) or ())) for t in self.TABLES)
        import __builtin__
        real_import, imported = __builtin__.__import__, {}
        self.made = {}

        def track_import(name, globals=None, locals=None, fromlist=None, level=-1):
            m = real_import(name, globals, locals, fromlist, level)
            who = (globals or {}).get("__name__")
            pkg = who if hasattr(sys.modules.get(who), "__path__") else (who or "").rpartition(".")[0]
            full = name
            if level != 0 and pkg:
                if level > 0:
                    base = pkg.rsplit(".", level - 1)[0]
                    full = base + "." + name if name else base
                elif sys.modules.get(pkg + "." + name) is not None:
                    full = pkg + "." + name
            # What this import made in the tables is the imported module's import's (an
            # import inside it has taken its own already).
            if full in sys.modules and full not in before:
                for t in self.TABLES:
                    got = self.table(t)
                    for k in list(got or ()):
                        if k not in tables[t]:
                            tables[t].add(k)
                            self.made.setdefault(full, []).append((t, k, got[k]))
            if who:
                got = imported.setdefault(who, set())
                parts = full.split(".")
                got.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
                for f in fromlist or ():
                    got.add(full + "." + f)
            return m

        __builtin__.__import__ = track_import
        try:
            for name in names:
                try:
                    __import__(name)
                except Exception:
                    pass
        finally:
            __builtin__.__import__ = real_import
            sys.path[:] = path
        self.order = [n for n in sys.modules if n not in before]
        added = set(self.order)
        self.mods = dict((n, sys.modules[n]) for n in self.order)
        self.needs, self.bases = {}, {}
        for n in self.order:
            if self.mods[n] is None:
                continue
            seen, todo = set([n]), [n]
            while todo:
                m = todo.pop()
                deps = set(imported.get(m, ()))
                # the placeholders a package's implicit relative imports left
                deps.update(d for d in added if self.mods[d] is None and d.rpartition(".")[0] == m)
                for d in deps:
                    if d in added and d not in seen:
                        seen.add(d)
                        todo.append(d)
            self.needs[n] = [m for m in self.order if m in seen]
            # The modules of the interpreter's start its imports bind (random's os): a
            # fresh import binds what sys.modules holds under their names at the time.
            self.bases[n] = [(b, sys.modules[b]) for b in set().union(*[imported.get(m, ()) for m in seen])
                             if b in before and sys.modules.get(b) is not None]
        # The directories a fresh import of each looks in besides sys.path's: those of the
        # packages its submodules are found in.
        self.dirs = dict((n, [d for m in self.needs[n] if self.mods[m] is not None for d in getattr(self.mods[m], "__path__", ())])
                         for n in self.needs)
        # What each closure's code reads of the modules it imports (from os import
        # urandom; re.compile at json's import) was these modules' namespaces as they are
        # now: a script that has changed one has a fresh import read its changes, so its
        # import is the real one.
        touched, self.touches = set(), {}
        for n in self.needs:
            t = set(self.needs[n]).union(*[imported.get(m, ()) for m in self.needs[n]])
            t = sorted(b for b in t if sys.modules.get(b) is not None and b not in ("sys", "__builtin__"))
            self.touches[n] = t
            touched.update(t)
        self.spaces = dict((b, dict(vars(sys.modules[b]))) for b in touched)
        import imp
        self.suffixes = [s for s, _, _ in imp.get_suffixes()]
        self.null = imp.NullImporter
        # The functions themselves, as the C import calls its own: a script that replaces
        # os.stat or os.listdir does not have them called by its imports.
        self.stat, self.listdir = os.stat, os.listdir

    @staticmethod
    def table(t):
        return getattr(sys.modules.get(t[0]), t[1], None)

    def clear(self):
        """In the fork, before its decision comes: the warm modules out of sys.modules, the
        tables as the interpreter's start left them."""
        tables = dict((t, self.table(t) if t[0] not in self.mods else getattr(self.mods[t[0]], t[1], None)) for t in self.TABLES)
        for n in self.order:
            for t, k, v in self.made.get(n, ()):
                got = tables[t]
                if got is not None and got.get(k) is v:
                    del got[k]
        cache = sys.path_importer_cache
        for k in list(cache):
            if k not in self.finders:
                del cache[k]
        for n in self.order:
            sys.modules.pop(n, None)

    def serve(self, script):
        """In the fork, its script known: the finder first in line."""
        # 2.7 asks whether the script, as named, is a zip file or a directory to run: the
        # answer (none) stays in the finders' cache.
        cache = sys.path_importer_cache
        cache[script] = None
        self.path, self.hooks = list(sys.path), list(sys.path_hooks)
        self.listing, self.listed, self.given = None, None, set()
        # The finders the decision's imports would ask (None: the C import's own); one of
        # the script's own in their place is asked by the real import: so it is.
        self.known = dict(cache)
        sys.meta_path.insert(0, self)
        self.meta = list(sys.meta_path)  # a finder the script adds is asked first

    def finders_as_known(self, dirs):
        cache, missing = sys.path_importer_cache, Warm.MISSING
        for d in dirs:
            f = cache.get(d, missing)
            if not (f is missing or f is None or f is self.known.get(d, missing)):
                return False
        return True

    def shadowed(self, names):
        # Listed again when the directory changed since (the script may write a module
        # and import it), as the import system's own finder looks again.
        try:
            d = self.path[0] or "."
            mtime = self.stat(d).st_mtime
            if self.listing is None or mtime != self.listed:
                self.listing, self.listed = set(self.listdir(d)), mtime
        except OSError:
            return True
        for n in names:
            top = n.partition(".")[0]
            if top in self.listing or any(top + s in self.listing for s in self.suffixes):
                return True
        return False

    def find_module(self, name, path=None):
        need = self.needs.get(name)
        if (need is None or sys.path != self.path or sys.path_hooks != self.hooks or sys.meta_path != self.meta
                or any(sys.modules.get(n, self.mods[n]) is not self.mods[n] for n in need)
                or any(sys.modules.get(b) is not m for b, m in self.bases[name])
                or not self.finders_as_known(self.path) or not self.finders_as_known(self.dirs[name])
                or self.changed(name)
                # a module the script has had and taken out is imported afresh
                or any(n in self.given and n not in sys.modules for n in need) or self.shadowed(need)):
            return None
        return self

    def changed(self, name):
        for b in self.touches[name]:
            m = sys.modules.get(b)
            if m is not None and b in self.mods and m is not self.mods[b]:
                continue  # another module: the other checks have it
            if m is not None:
                space = vars(m)
                for k, v in self.spaces[b].items():
                    if space.get(k, space) is not v:
                        return True
        return False

    def load_module(self, name):
        put = [n for n in self.needs[name] if n not in sys.modules]
        self.given.update(put)
        for n in put:
            sys.modules[n] = self.mods[n]
            if n == "random":
                self.mods[n].seed()  # from os.urandom, as its import seeds it
        for n in put:
            for t, k, v in self.made.get(n, ()):
                got = self.table(t)
                if got is not None and k not in got:
                    if t[0] == "re" and len(got) >= getattr(sys.modules["re"], "_MAXCACHE", 100):
                        got.clear()  # as 2.7's re empties its full cache
                    got[k] = v
                    if t[0] == "sys":
                        self.known[k] = v
            if "." not in n and self.mods[n] is not None:
                self.found(self.mods[n])
        return self.mods[name]

    def found(self, module):
        """The finders a fresh import of a top-level module from a file makes on its way to
        it: one for each entry of sys.path up to the directory that holds it, as 2.7's C
        import makes them (a path hook's, None for a directory, a NullImporter else)."""
        f = getattr(module, "__file__", None)
        if not f:
            return
        where = os.path.dirname(f)
        if hasattr(module, "__path__"):
            where = os.path.dirname(where)
        cache = sys.path_importer_cache
        for entry in sys.path:
            if entry not in cache:
                cache[entry] = None
                for hook in sys.path_hooks:
                    try:
                        cache[entry] = hook(entry)
                        break
                    except ImportError:
                        pass
                else:
                    try:
                        isdir = self.stat(entry).st_mode & 0o170000 == 0o040000
                    except OSError:
                        isdir = False
                    if not isdir:
                        cache[entry] = self.null(entry)
                self.known[entry] = cache[entry]
            if entry == where:
                break


W = Warm(WARM)

import ctypes  # noqa: E402  after the warm modules: none of theirs is the server's

_libc = ctypes.CDLL(None, use_errno=True)
_SZ = ctypes.sizeof(ctypes.c_size_t)
_CMSG_HDR = _SZ + 8  # cmsghdr: cmsg_len (size_t), cmsg_level, cmsg_type (int)
_CONTROL = 64  # room for one cmsghdr and a few descriptors
SOL_SOCKET, SCM_RIGHTS, MSG_CTRUNC, MSG_TRUNC = 1, 1, 0x8, 0x20


class _Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class _Msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(_Iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


_BUF = ctypes.create_string_buffer(1 << 20)
_CTL = ctypes.create_string_buffer(_CONTROL)
_IOV = _Iovec(ctypes.cast(_BUF, ctypes.c_void_p), len(_BUF))
_libc.recvmsg.argtypes = [ctypes.c_int, ctypes.POINTER(_Msghdr), ctypes.c_int]
_libc.recvmsg.restype = ctypes.c_ssize_t
_libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
_libc.fopen.restype = ctypes.c_void_p
# PyRun_FileExFlags(fp, filename, start, globals, locals, closeit, flags): pythonapi
# raises the script's exception as its own.
_run_file = ctypes.pythonapi.PyRun_FileExFlags
_run_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.py_object,
                      ctypes.py_object, ctypes.c_int, ctypes.c_void_p]
_run_file.restype = ctypes.py_object


def recv_fds():
    """One message and the descriptors it carries: (bytes, [fd...], flags)."""
    ctypes.memset(_CTL, 0, _CONTROL)
    m = _Msghdr(None, 0, ctypes.pointer(_IOV), 1, ctypes.cast(_CTL, ctypes.c_void_p), _CONTROL, 0)
    while True:
        n = _libc.recvmsg(S.fileno(), ctypes.byref(m), 0)
        if n >= 0:
            break
        if ctypes.get_errno() != 4:  # EINTR
            return b"", [], 0  # as the launcher's going away
    fds = []
    raw = _CTL.raw[:m.controllen]
    at = 0
    while at + _CMSG_HDR <= len(raw):
        length = int(ctypes.c_size_t.from_buffer_copy(raw[at:at + _SZ]).value)
        level = ctypes.c_int.from_buffer_copy(raw[at + _SZ:at + _SZ + 4]).value
        kind = ctypes.c_int.from_buffer_copy(raw[at + _SZ + 4:at + _SZ + 8]).value
        if length < _CMSG_HDR or at + length > len(raw):
            break
        if level == SOL_SOCKET and kind == SCM_RIGHTS:
            for i in range(at + _CMSG_HDR, at + length - 3, 4):
                fds.append(ctypes.c_int.from_buffer_copy(raw[i:i + 4]).value)
        at += (length + _SZ - 1) // _SZ * _SZ
    return _BUF.raw[:n], fds, m.flags


def nonblocking(fd):
    _libc.fcntl(fd, 4, os.O_NONBLOCK)  # F_SETFL


def argv_of(argv):
    """The decision's argv as 2.7 gives it to a script: bytes, as received."""
    return argv


def become(fds, shell_cpu, argv):
    """In the fork: become `argv[0] argv[1] argv[2:]...` as a fresh 2.7 interpreter would
    run it: argv, sys.path[0], the modules the server imported (gone from sys.modules),
    __main__'s namespace, descriptors and session are set back as a start makes them."""
    S.close()
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    # 2.7's closerange calls close() on every number up to the limit (tens of thousands
    # of system calls, a fork's worth of CPU): only the open ones are closed.
    for fd in os.listdir("/proc/self/fd"):
        if int(fd) >= 3:
            try:
                os.close(int(fd))
            except OSError:
                pass
    if shell_cpu >= 0:  # a shell waits for the interpreter (-1: none)
        shell(shell_cpu)
    exe, script = argv[0], argv[1]
    sys.argv[:] = argv[1:]
    # 2.7 puts the script's directory, symbolic links resolved, where -c put "".
    sys.path[0] = os.path.dirname(os.path.realpath(script))
    W.serve(script)
    if "random" in sys.modules:
        sys.modules["random"].seed()
    main = sys.modules["__main__"].__dict__  # emptied by take
    main.update(__name__="__main__", __doc__=None, __package__=None,
                __builtins__=sys.modules["__builtin__"], __file__=script)
    # The script is read and run by the C call the interpreter runs a script file with:
    # its tokenizer reads a file (line numbers of a syntax error at the end of the file,
    # coding declarations) as no compile() of a string does.
    fp = _libc.fopen(script, b"r")
    if not fp:
        err = ctypes.get_errno()
        sys.stderr.write("%s: can't open file '%s': [Errno %d] %s\n" % (exe, script, err, os.strerror(err)))
        sys.stderr.flush()
        os._exit(2)
    try:
        _run_file(fp, script, 257, main, main, 1, None)  # Py_file_input; closes fp
    except SystemExit as e:
        finish(exit_code(e))
    except BaseException:
        t, v, tb = sys.exc_info()
        # As the interpreter reports an uncaught exception, without this frame (a syntax
        # error has no frame of the script's).
        if tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        elif tb is not None and issubclass(t, SyntaxError):
            tb = None
        sys.excepthook(t, v, tb)
        del t, v, tb
        finish(1)
    finish(0)


def shell(cpu):
    """Stand in for the shell that runs the interpreter and waits for it (a `run` without
    exec): this process, which leads the session, waits and exits as the shell does (128+n
    for signal n); its child goes on to become the interpreter, in the same session and
    process group, as the shell's child is. The decision's CPU limit (cpu seconds, 0 for
    none) is set before the fork, so that the child inherits it as the shell's child does:
    the launcher sets it on this process only once the server has said its pid."""
    if cpu > 0:
        import resource  # gone from sys.modules in the child, with the server's
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    pid = os.fork()
    if pid == 0:
        return
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except OSError as e:
            if e.errno != 4:  # EINTR
                os._exit(127)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def exit_code(e):
    """The exit status 2.7 gives an uncaught SystemExit, printing a message that is not a
    number to stderr as it does."""
    code = e.code
    if code is None:
        return 0
    if isinstance(code, (int, long)):
        return int(code) & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def finish(code):
    """End as 2.7's finalization ends a script, less its teardown of every object (see
    forkserver.py's finish): non-daemon threads joined, sys.exitfunc (atexit's handlers),
    stdio flushed, then the process exits."""
    for step in (sys.modules["threading"]._shutdown if "threading" in sys.modules else None,
                 getattr(sys, "exitfunc", None)):
        try:
            if step is not None:
                step()
        except BaseException:
            pass
    for f in (sys.stdout, sys.stderr):
        try:
            if f is not None and not f.closed:
                f.flush()
        except BaseException:
            pass
    os._exit(code)
