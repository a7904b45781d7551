"""What both fork servers share (forkserver.py for Python 3, forkserver2.py for 2.7):
the server's loop and the process forked ahead. Written in the Python both read;
runner/sandbox/launcher.go puts it after each server's own source, before its start
(become(*serve())). It uses the server's names: S, M, W, and its own recv_fds,
nonblocking, argv_of, MSG_TRUNC and MSG_CTRUNC (the two interpreters receive descriptors
and name arguments differently).
"""

# Compiled by each decision's process before its decision comes (take): source that can
# raise no warning, of names the interpreter interned at its start.
WARMUP = (b"import sys\n"
          b"def f(a, b=1):\n    return [x * b for x in a if x] or {'a': a, 'b': (b, -1.5)}\n"
          b"if len(sys.argv) > 1:\n    print(f([int(sys.argv[1])]), str(sys.argv[1:]).split())\n")


def serve():
    """The server's loop; returns only in a forked child, with its descriptors and argv.

    Each decision's process is forked ahead, while the launcher has yet to ask for it: the
    fork (the server's page tables copied) is off the decision's path, done while the
    launcher and kothd handle the decision before. The process forked ahead reads the
    launcher's message itself (take) and says its pid; the server reads nothing while it
    waits, reaps it and reports its status. What it read comes through a pipe: b"d" a
    decision (report it), b"q" the launcher gone (end); nothing, a process killed before a
    decision came (fork another; after three in a row the server gives up, and the launcher,
    whose socket closes, starts it again or launches plainly)."""
    said_r, said_w = os.pipe()
    nonblocking(said_r)
    S.send(b"R")
    silent = 0
    while True:
        pid = os.fork()
        if pid == 0:
            os.close(said_r)
            return take(said_w)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except OSError as e:
                if e.errno != 4:  # EINTR, which 2.7 does not retry
                    os._exit(0)
        try:
            said = os.read(said_r, 1)
        except OSError:  # nothing said (EAGAIN)
            said = b""
        if said == b"q":
            os._exit(0)
        if said == b"d":
            S.send(b"S%d %d" % (pid, status))
        silent = 0 if said else silent + 1
        if silent >= 3:
            os._exit(1)


def take(said):
    """In the process forked ahead: wait for the launcher's message, answer one that is no
    decision's, and return the descriptors and argv of the first that is, once the server
    knows (said) and the launcher has its pid. What does not depend on the decision is
    done before it comes: the session, the server's modules out of sys.modules, __main__
    emptied, and a compile of a few lines of the kind bots are made of (WARMUP). A fork's
    first writes to a page copy it (a fault each, several microseconds here): a decision's
    compile of a three-line script took 1 ms and 117 faults in the fork, 0.1 ms and one
    after this compile, whose pages (the compiler's, the interned strings') it shares."""
    os.setsid()
    for name in set(sys.modules) - M:
        del sys.modules[name]
    W.clear()
    sys.modules["__main__"].__dict__.clear()
    try:
        compile(WARMUP, "<kothd warm-up>", "exec", 0, True)
        # And what become does with the script's name and file, on names of no decision's.
        with open(os.devnull, "rb") as f:
            f.read()
        os.path.dirname(os.path.realpath(os.path.join(os.getcwd(), ".")))
    except Exception:
        pass  # only a warm-up
    try:
        while True:
            msg, fds, flags = recv_fds()
            if not msg and not fds:
                break  # the launcher went away
            argv = msg.split(b"\0")
            if len(fds) != 3 or len(argv) < 3 or not (argv[0] == b"" or argv[0][:1] == b"w" and argv[0][1:].isdigit()) or flags & (MSG_TRUNC | MSG_CTRUNC):
                for fd in fds:
                    os.close(fd)
                S.send(b"E")
                continue
            os.write(said, b"d")
            S.send(b"P%d" % os.getpid())
            return fds, int(argv[0][1:] or -1), argv_of(argv[1:])
    except OSError:
        pass
    try:
        os.write(said, b"q")
    except OSError:
        pass
    os._exit(0)
