"""kothd fork server: runs a Python bot's script in a fresh fork per decision.

Started by the launcher (forkclient.py) inside the bot's sandbox and PID namespace, as
the bot's own interpreter with only `-c FORK_BOOT`, the boot reading this source from
descriptor 3, a SOCK_SEQPACKET socket to the launcher. The boot records the modules the
interpreter started with (M) and imports only _socket; this program imports nothing more.
Starting the interpreter once instead of once per decision is the whole gain: a fork of
an idle interpreter costs a fraction of a millisecond, a start 15-30 ms of CPU.

Protocol (one message each):
  launcher -> server: NUL-separated mode ("", or "w<CPU seconds>" when a shell waits
                      for the interpreter: see shell) and argv (interpreter, script, arguments...) with three
                      descriptors (SCM_RIGHTS): the decision's stdin, stdout and stderr.
  server -> launcher: "R" once ready; "P<pid>" once the decision's process has the
                      message (it was forked ahead and reads it: forkahead.py); "E" for a
                      message that is no decision's; "S<pid> <wait status>" once it has
                      exited (the server reaps it).
The decision's process is the fork: it takes the three descriptors as 0-2, closes every
other, leads a session of its own, and runs the script as `python3 script args...` would
(see become). Everything else (limits, timeouts, killing what the bot left behind,
reading its output) stays the launcher's, as for a spawned bot.
"""
import os
import sys

# The standard modules bots import most (json alone costs 8 ms of CPU and a Mafia bot
# imports it at every decision), imported once by the server and kept out of sys.modules:
# a decision's process gets each, with what its import needs, only when its code imports
# it (see Warm). Modules whose import reads more than the interpreter's own files and
# state are not here: their state is the server's moment, not the decision's.
WARM = ("re", "json", "random", "collections", "functools", "string", "copy", "heapq",
        "bisect", "math", "itertools", "operator", "time")


class Warm:
    """The warm modules, imported by the server before it serves, and the import of a
    decision's process that hands them out. In the fork, every module the warm imports
    added is gone from sys.modules, as a fresh start has none of them; when the script
    imports one, the import system's _find_and_load (which it calls for a module not in
    sys.modules: import statements, importlib, C code alike) is this one's, and installs
    the module and every module its own import imported, as that import would have left
    them, instead of reading them from disk again. The objects are the server's, never
    used before (the fork's copy of them: what one decision does to them no other sees);
    random's generator, seeded from os.urandom at its import, is seeded afresh from it.

    A fresh import would read other files if the script's directory held a module of one
    of those names (its json.py), or the script changed sys.path, sys.meta_path or
    sys.path_hooks, or put another module in sys.modules under one of those names: the
    import is then the interpreter's own, from disk. What remains visible: the import
    system's _find_and_load is not the interpreter's function (docs/trust.md)."""

    # Tables of warm modules that other modules' imports fill (re's compiled patterns,
    # copyreg's picklers) and the import system's finders: each entry goes to the module
    # whose import made it, and is in the table only once that module is imported.
    TABLES = (("re", "_cache"), ("copyreg", "dispatch_table"), ("sys", "path_importer_cache"))
    MISSING = object()  # no entry, where None is one

    def __init__(self, names):
        self.boot = sys.modules["_frozen_importlib"]
        self.real = self.boot._find_and_load
        path, sys.path[:] = sys.path[:], [p for p in sys.path[1:]]  # not the bot's directory
        before = set(sys.modules)
        tables = {t: set(self.table(t) or ()) for t in self.TABLES}  # the entries before
        import builtins
        real_import, loading = builtins.__import__, []
        # What each module's import imported, in the order it did: a fresh import puts a
        # module in sys.modules before its code runs, then what that code imports.
        self.imports, self.made = {}, {}

        def imported(who, name):
            got = self.imports.setdefault(who, [])
            if name not in got:
                got.append(name)

        def track_load(name, import_):
            loading.append(name)
            try:
                return self.real(name, import_)
            finally:
                loading.pop()
                if loading:
                    imported(loading[-1], name)
                for t in self.TABLES:  # what this import (and none inside it) added
                    got = self.table(t)
                    for k in list(got or ()):
                        if k not in tables[t]:
                            tables[t].add(k)
                            self.made.setdefault(name, []).append((t, k, got[k]))

        def track_import(name, globals=None, locals=None, fromlist=(), level=0):
            m = real_import(name, globals, locals, fromlist, level)
            if loading:
                full = name
                if level:
                    try:
                        full = self.boot._resolve_name(name, (globals or {}).get("__package__") or "", level)
                    except ImportError:
                        return m
                parts = full.split(".")
                for i in range(1, len(parts) + 1):
                    imported(loading[-1], ".".join(parts[:i]))
                for f in fromlist or ():
                    imported(loading[-1], full + "." + f)
            return m

        self.boot._find_and_load, builtins.__import__ = track_load, track_import
        try:
            for name in names:
                try:
                    __import__(name)
                except Exception:
                    pass
        finally:
            self.boot._find_and_load, builtins.__import__ = self.real, real_import
            sys.path[:] = path
        self.order = [n for n in sys.modules if n not in before]
        self.mods = {n: sys.modules[n] for n in self.order}
        self.needs = {n: self.plan(n, ()) for n in self.order}
        # The modules of the interpreter's start that each closure's imports bind (random's
        # os): a fresh import binds what sys.modules holds under their names at the time.
        self.bases = {}
        for n in self.order:
            self.bases[n] = [(b, sys.modules[b]) for b in {b for m in self.needs[n] for b in self.imports.get(m, ())}
                             if b in before and b in sys.modules]
        # The directories a fresh import of each looks in besides sys.path's: those of the
        # packages its submodules are found in.
        self.dirs = {n: [d for m in self.needs[n] for d in getattr(self.mods[m], "__path__", ())] for n in self.order}
        # What each closure's code reads of the modules it imports (from os import
        # urandom; re.compile at json's import) was these modules' namespaces as they are
        # now: a script that has changed one (os.urandom, re.compile replaced) has a
        # fresh import read its changes, so its import is the real one.
        touched = set()
        self.touches = {}
        for n in self.order:
            t = {b for m in self.needs[n] for b in self.imports.get(m, ())} | set(self.needs[n])
            t = sorted(b for b in t if b in sys.modules and b not in ("sys", "builtins", "_frozen_importlib"))
            self.touches[n] = t
            touched.update(t)
        self.spaces = {b: dict(vars(sys.modules[b])) for b in touched}
        import _imp
        self.suffixes = [".py", ".pyc", ".pyw"] + _imp.extension_suffixes()
        # The functions themselves, as the import system keeps its own: a script that
        # replaces os.stat or os.listdir does not have them called by its imports.
        self.stat, self.listdir = os.stat, os.listdir
        # The finder the import system makes for a directory, and its loaders: a finder of
        # that kind and those loaders in sys.path_importer_cache is as good as its own.
        ext = sys.modules["_frozen_importlib_external"]
        self.finder = ext.FileFinder
        self.loaders = ext.FileFinder("/", *ext._get_supported_file_loaders())._loaders
        # One thread's import at a time, as the import system's module locks make it: a
        # thread must not see a module of another's closure before its closure is in.
        # Made afresh in every forked child (each decision's process, and a process its
        # script forks while another thread holds it), as the import system's lock is.
        import _thread
        self.lock = _thread.RLock()
        os.register_at_fork(after_in_child=lambda: setattr(self, "lock", _thread.RLock()))

    @staticmethod
    def table(t):
        return getattr(sys.modules.get(t[0]), t[1], None)

    def plan(self, name, present):
        """The warm modules a fresh import of name puts in sys.modules when those in
        present are there already, in the order their imports end: the order sys.modules
        lists them in (the import system moves a module to its end once its code has run)
        and the one they fill tables in. A module's package is imported before it, what a
        module's code imports before it ends."""
        ended, done = [], set()

        def load(n):
            if n in done or n in present or n not in self.mods:
                return
            parent = n.rpartition(".")[0]
            if parent:
                load(parent)  # the import system imports a module's package first
                if n in done:
                    return  # the package's import imported it
            done.add(n)
            for d in self.imports.get(n, ()):
                load(d)
            ended.append(n)

        load(name)
        return ended

    def clear(self):
        """In the fork, before its decision comes: the warm modules out of sys.modules."""
        for n in self.order:
            sys.modules.pop(n, None)
        cache = sys.path_importer_cache
        for n in self.order:  # the finders their imports made, until they are imported
            for t, k, v in self.made.get(n, ()):
                if t[0] == "sys" and cache.get(k) is v:
                    del cache[k]

    def serve(self):
        """In the fork, its script known (sys.path set): the import the modules' to give."""
        self.path, self.meta, self.hooks = list(sys.path), list(sys.meta_path), list(sys.path_hooks)
        self.listing, self.listed, self.given = None, None, set()
        # The finders the decision's imports would ask, as the interpreter's start and the
        # warm imports leave them; one of the script's own in their place (or a finder
        # other than the import system's own where there was none) is asked by the real
        # import: so it is.
        self.known = dict(sys.path_importer_cache)
        self.boot._find_and_load = self.find_and_load

    def shadowed(self, names):
        """Whether the script's directory holds a module of one of these names' packages."""
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

    def finders_as_known(self, dirs):
        """Whether the import system would ask, for these directories, the finders it
        makes itself (or none): not one the script put in sys.path_importer_cache."""
        cache, missing = sys.path_importer_cache, Warm.MISSING
        for d in dirs:
            f = cache.get(d, missing)
            if not (f is missing or f is self.known.get(d, missing) or f is None and d not in self.known
                    or type(f) is self.finder and f.path == d and f._loaders == self.loaders):
                return False
        return True

    def find_and_load(self, name, import_):
        if name not in self.needs:
            return self.real(name, import_)
        with self.lock:
            module = self.give(name)
        return self.real(name, import_) if module is None else module

    def give(self, name):
        """The warm module name and its import's closure put in sys.modules as a fresh
        import puts them, or None when its import must be the interpreter's own."""
        need = self.needs[name]
        if (sys.path != self.path or sys.meta_path != self.meta or sys.path_hooks != self.hooks
                or any(sys.modules.get(n, self.mods[n]) is not self.mods[n] for n in need)
                or any(sys.modules.get(b) is not m for b, m in self.bases[name])
                or not self.finders_as_known(self.path) or not self.finders_as_known(self.dirs[name]) or self.shadowed(need)):
            return None
        for b in self.touches[name]:
            m = sys.modules.get(b)
            if m is not None and b in self.mods and m is not self.mods[b]:
                continue  # another module: the checks above have it
            if m is not None:
                space = vars(m)
                for k, v in self.spaces[b].items():
                    if space.get(k, space) is not v:
                        return None
        ended = self.plan(name, sys.modules)
        # A module the script has had and taken out of sys.modules is imported afresh
        # (a new object, its code run again), as a fresh import of it would be.
        if any(n in self.given for n in ended):
            return None
        self.given.update(ended)
        for n in ended:
            sys.modules[n] = self.mods[n]
            if n in ("re", "copyreg"):  # its table as its own import left it
                for t in self.TABLES:
                    if t[0] == n:
                        got = self.table(t)
                        for m in self.order:
                            for u, k, v in self.made.get(m, ()):
                                if u == t and got.get(k) is v:
                                    del got[k]
            if n == "random":
                self.mods[n].seed()  # from os.urandom, as its import seeds it
            if "." not in n:
                self.found(self.mods[n])
        for n in ended:
            for t, k, v in self.made.get(n, ()):
                got = self.table(t)
                if got is not None and k not in got and (t[0] == "sys" or sys.modules.get(t[0]) is self.mods.get(t[0])):
                    if t[0] == "re" and len(got) >= getattr(sys.modules["re"], "_MAXCACHE", 512):
                        del got[next(iter(got))]  # as re's cache drops its oldest
                    got[k] = v
                    if t[0] == "sys":
                        self.known[k] = v
        return self.mods[name]

    def found(self, module):
        """The finders a fresh import of a top-level module from a file makes on its way
        to it: one for each entry of sys.path up to the directory that holds it."""
        spec = getattr(module, "__spec__", None)
        if spec is None or not spec.has_location or not spec.origin:
            return
        where = os.path.dirname(spec.origin)
        if spec.submodule_search_locations is not None:
            where = os.path.dirname(where)
        finder = sys.modules["_frozen_importlib_external"].PathFinder
        for entry in sys.path:
            self.known.setdefault(entry, finder._path_importer_cache(entry))
            if entry == where:
                break


def recv_fds():
    """One message of the launcher's and the descriptors it carries: (bytes, [fd...],
    flags); forkahead.py's take reads with it."""
    msg, anc, flags, _ = S.recvmsg(1 << 20, _socket.CMSG_SPACE(16))
    fds = []
    for level, kind, data in anc:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds += [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data) - 3, 4)]
    return msg, fds, flags


MSG_TRUNC, MSG_CTRUNC = _socket.MSG_TRUNC, _socket.MSG_CTRUNC


def nonblocking(fd):
    os.set_blocking(fd, False)


def argv_of(argv):
    """The decision's argv as the interpreter gives it to a script: str."""
    return [os.fsdecode(a) for a in argv]


def become(fds, shell_cpu, argv):
    """In the fork: become `argv[0] argv[1] argv[2:]...` as a fresh interpreter would run
    it. What a fresh start would differ in is set back: argv, sys.path[0], the modules the
    server imported (gone from sys.modules), __main__'s namespace, `random`'s seed (when
    the interpreter imports it at start), descriptors, session."""
    S.close()
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    os.closerange(3, 1 << 16)
    if shell_cpu >= 0:  # a shell waits for the interpreter (-1: none)
        shell(shell_cpu)
    exe, script = argv[0], argv[1]
    # The interpreter names its script so (__file__, tracebacks): joined to the working
    # directory, not normalised ("./bot.py" is "/dir/./bot.py").
    path = os.path.join(os.getcwd(), script)
    sys.argv[:] = argv[1:]
    sys.orig_argv[:] = argv
    # A script's directory heads sys.path (symlinks resolved), where -c put "".
    sys.path[0] = os.path.dirname(os.path.realpath(script))
    # The interpreter asks the import system whether the script is a zip file or a
    # directory to run: the answer (none) stays in the finders' cache.
    sys.path_importer_cache[path] = None
    W.serve()
    if "random" in sys.modules:
        sys.modules["random"].seed()  # from os.urandom, as a fresh import seeds it
    main = sys.modules["__main__"].__dict__  # emptied by take
    main.update(__name__="__main__", __doc__=None, __package__=None,
                __loader__=sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", path),
                __spec__=None, __annotations__={}, __builtins__=sys.modules["builtins"],
                __file__=path, __cached__=None)
    try:
        f = open(script, "rb")
    except OSError as e:
        sys.stderr.write("%s: can't open file %r: [Errno %d] %s\n" % (exe, path, e.errno, e.strerror))
        sys.stderr.flush()
        raise SystemExit(2)
    with f:
        source = f.read()
    try:
        exec(compile(source, path, "exec", dont_inherit=True), main)
    except SystemExit as e:
        finish(main, exit_code(e))
    except BaseException as e:
        # As the interpreter reports an uncaught exception, without this frame.
        tb = e.__traceback__
        tb = tb.tb_next if tb is not None else None
        e.__traceback__ = tb  # the one printed
        sys.excepthook(type(e), e, tb)
        del e, tb
        finish(main, 1, sys.exc_info()[0] is KeyboardInterrupt)
    finish(main, 0)


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
    """The exit status the interpreter gives an uncaught SystemExit, printing a message
    that is not a number to stderr as it does."""
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def finish(main, code, interrupted=False):
    """End as the interpreter's finalization ends a script, less its teardown of every
    object: what a script can see of it runs (non-daemon threads joined, exit handlers,
    the script's globals released (their files closed and flushed), stdio flushed, a
    failed flush giving 120), then the process exits without freeing the interpreter's
    memory object by object (a fork's teardown copies the pages it shares with the
    server: most of a decision's CPU). Objects kept alive elsewhere are not finalized:
    docs/trust.md."""
    import atexit
    for step in (sys.modules["threading"]._shutdown if "threading" in sys.modules else None,
                 atexit._run_exitfuncs, main.clear):
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
            code = 120
    if interrupted:
        # The interpreter kills itself with SIGINT after an uncaught KeyboardInterrupt.
        import signal
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


# Named as the import system's own code, so that a traceback through an import leaves
# this frame out as it leaves out the import system's (the interpreter trims those).
for _f in (Warm.find_and_load, Warm.give, Warm.plan, Warm.shadowed, Warm.found, Warm.finders_as_known):
    _f.__code__ = _f.__code__.replace(co_filename="<frozen importlib._bootstrap>")
W = Warm(WARM)
