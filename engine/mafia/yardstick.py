"""Yardstick for Let's play Mafia! (codegolf 151341): the original controller's loop
(Mafia-Engine, controller/main.py), written anew from the rules (spec mafia.md §1-§5). Each
bot runs in its own directory (a fresh copy of the one kothd prepared, kept across the games
as the original never cleaned it) as `./run` through the shell, talking through
from_server and to_server, one process at a time, unsandboxed. Games run one after another,
all bots in every game; Randy fillers (the engine's own, §5.2) bring fewer than six up to
six and are played in this process. The draws are Python's own: the table is not kothd's,
the work is.
"""
import os
import random
import re
import shutil
import subprocess
import tempfile

from yardcommon import Clock, read_spec

MIN_PLAYERS = 6
ROUNDS = 50
TIMEOUT = 10  # seconds: the original had none; a hung bot must not hang the bench
SAY = ["No", "Yes", "I am the cop", "I am the doctor", "I am a normal villager",
       "I trust this player: ", "I think this player is suspicious: ", "I think this player is the cop: ",
       "I think this player is the doctor: ", "I think this player is a normal villager: ",
       "I think this player is mafia: ", "Do you think this player is mafia? ",
       "I tried to save this player: ", "I successfully saved this player: ",
       "I investigated this player and found that they were mafia-aligned: ",
       "I investigated this player and found that they were village-aligned: ",
       "Will you please use your power on this player tonight? "]
ROLE = {"mafia": "a mafioso", "cop": "the cop", "doctor": "the doctor", "villager": "a villager"}


def game_names(names):
    """§1.6: letters and digits only, never `no`, unique; Randy1, Randy2, … up to six."""
    taken, out = {"no"}, []
    for n in names:
        base = re.sub("[^A-Za-z0-9]", "", n) or "Bot"
        name, k = base, 2
        while name in taken:
            name, k = base + str(k), k + 1
        taken.add(name)
        out.append(name)
    k = 1
    while len(out) < MIN_PLAYERS:
        if "Randy%d" % k not in taken:
            taken.add("Randy%d" % k)
            out.append("Randy%d" % k)
        k += 1
    return out


class Bot:
    """A program in its directory."""

    runs = 0  # every run of every program bot, for the report

    def __init__(self, name, path):
        self.name, self.path = name, path

    def setup(self, players):
        with open(os.path.join(self.path, "players"), "w") as f:
            f.write("\n".join(players))
        for fn in ("from_server", "to_server"):
            open(os.path.join(self.path, fn), "w").close()

    def deliver(self, text):
        with open(os.path.join(self.path, "from_server"), "w") as f:
            f.write(text)

    def run(self, collect):
        Bot.runs += 1
        try:
            subprocess.run("./run", shell=True, cwd=self.path, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pass
        if not collect:
            return ""
        to = os.path.join(self.path, "to_server")
        try:
            with open(to, "rb") as f:
                text = f.read().decode("latin-1")
        except OSError:
            return ""
        open(to, "w").close()
        return text


class Randy:
    """The question's example bot (§1.5), played in this process."""

    def __init__(self, name, rng):
        self.name, self.rng, self.inbox = name, rng, ""

    def setup(self, players):
        self.options = sorted(players) + ["no one"]
        self.inbox = ""

    def deliver(self, text):
        self.inbox = text

    def run(self, collect):
        line = self.inbox.split("\n", 1)[0] if self.inbox else ""
        if not line:
            return ""
        r = self.rng
        if line.endswith("?") or line.endswith("victim."):
            return r.choice(self.options)
        if r.random() < 0.5:
            return ""
        if r.random() < 0.5:
            return "vote " + r.choice(self.options)
        i = r.randint(0, 17)
        return "say %d" % i + (" " + r.choice(self.options) if i > 4 else "")


def plurality(votes, rng):
    rng.shuffle(votes)
    counts = {}
    for v in votes:
        counts[v] = counts.get(v, 0) + 1
    top = max(counts.values())
    return next(v for v in votes if counts[v] == top)


def play(bots, rng):
    """One game; returns (winning side or None when abandoned, roles by name)."""
    names = sorted(bots)
    for b in bots.values():
        b.setup(names)
    order = names[:]
    rng.shuffle(order)
    m = len(order) // 3
    mafia, cop, doctor = order[:m], order[m], order[m + 1]
    role = {n: "villager" for n in names}
    role.update({n: "mafia" for n in mafia})
    role[cop], role[doctor] = "cop", "doctor"
    living = set(names)
    buf = {n: [] for n in names}
    vote = {}

    def won():
        ms = sum(1 for n in living if role[n] == "mafia")
        if ms == 0:
            return "village"
        if ms >= len(living) - ms:
            return "mafia"
        return None

    def write(who):
        for n in who:
            bots[n].deliver("".join(line + "\n" for line in buf[n]))
            buf[n] = []

    def tell(who, *lines):
        for n in who:
            buf[n].extend(lines)

    def night_answer(n, prompt):
        tell([n], prompt)
        write([n])
        return re.sub("[^A-Za-z0-9 ]", "", bots[n].run(True))

    tell(names, "Rise and shine! Today is day 0.", "No voting will occur today.",
         "Be warned: Tonight the mafia will strike.")
    for n in mafia:
        tell([n], "You are a member of the mafia.", "Your allies are:", *[a for a in mafia if a != n])
    tell([cop], "You are the cop.")
    tell([doctor], "You are the doctor.")
    victim = investigated = None
    alive_at = []
    d = 0
    while True:
        day = sorted(living)
        rng.shuffle(day)
        if d >= 1:
            tell(living, "Dawn of day %d." % d)
            if victim:
                tell(living, "Last night, %s was killed. They were %s." % (victim, ROLE[role[victim]]))
                living.discard(victim)
                day.remove(victim)
                if won():
                    return won(), role
            if cop in living and investigated:
                side = "mafia" if role[investigated] == "mafia" else "village"
                tell([cop], "Investigations showed that %s is %s-aligned." % (investigated, side))
        alive_at.append(len(living))
        if d >= 10 and alive_at[d] == alive_at[d - 10]:
            return None, role
        write(living)
        for _ in range(ROUNDS):
            for n in day:
                day_command(n, bots[n].run(True), d, names, living, vote, tell)
            write(living)
        lynched = plurality([vote.get(n) for n in day], rng)
        if lynched:
            tell(living, "The town has killed %s!" % lynched, "They were %s." % ROLE[role[lynched]])
            living.discard(lynched)
            day.remove(lynched)
        else:
            tell(living, "The town opted to lynch no one today.")
        write(living)
        for n in day:
            bots[n].run(False)
        vote.clear()
        if won():
            return won(), role
        # Night (§2.6).
        votes = []
        for n in mafia:
            if n in living:
                a = night_answer(n, "It is night. Vote for a victim.")
                votes.append(a if a in living else None)
        victim = plurality(votes, rng)
        investigated = None
        if cop in living:
            a = night_answer(cop, "It is night. Who would you like to investigate?")
            investigated = a if a in role else None
        if doctor in living:
            if night_answer(doctor, "It is night. Who would you like to save?") == victim:
                victim = None
        d += 1


def day_command(n, text, d, names, living, vote, tell):
    """Applies one day command (§2.4)."""
    w = re.sub("[^A-Za-z0-9 ]", "", text).split()
    if len(w) >= 2 and w[0] == "vote":
        if d == 0:
            return
        if w[1] == "no" and len(w) >= 3 and w[2] == "one":
            vote[n] = None
            tell(living, "%s has voted to lynch no one." % n)
        elif w[1] in living:
            vote[n] = w[1]
            tell(living, "%s has voted to lynch %s." % (n, w[1]))
        elif w[1] in names:
            vote[n] = None
    elif len(w) >= 2 and w[0] == "say" and w[1].isdigit() and int(w[1]) <= 16:
        i, rest = int(w[1]), w[2:]
        subject = ""
        if i >= 5:
            if not rest or rest[0] not in names:
                return
            subject, rest = rest[0], rest[1:]
        recipient = ""
        if len(rest) == 1:
            if rest[0] not in names:
                return
            recipient = rest[0] + ", "
        tell(living, '%s says "%s%s%s"' % (n, recipient, SAY[i], subject))


def main():
    spec = read_spec()
    entrants = spec["bots"]
    names = game_names([b["name"] for b in entrants])
    rng = random.Random(spec["seed"])
    scratch = tempfile.mkdtemp(prefix="mafia-yardstick-")
    try:
        bots = {}
        for i, n in enumerate(names):
            if i < len(entrants):
                path = os.path.join(scratch, n)
                shutil.copytree(entrants[i]["dir"], path, symlinks=True)
                bots[n] = Bot(n, path)
            else:
                bots[n] = Randy(n, rng)
        wins = {n: 0 for n in names[:len(entrants)]}
        clock = Clock()
        for _ in range(spec["games"]):
            side, role = play(bots, rng)
            for n in wins:
                if side and (role[n] == "mafia") == (side == "mafia"):
                    wins[n] += 1
        best = max(wins, key=wins.get)
        clock.report(spec["games"], [best, wins[best]], Bot.runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


main()
