"""Yardstick for Bank Heist (codegolf 115303): the original controller's loop (bankheist.py,
run as `python bankheist.py N`), written anew from the rules (spec bankheist.md §2-§5). Every
decision launches the bot's command through the shell with the 31 arguments appended, one
process at a time, unsandboxed, and waits for it; the rabble, the banks and the payments are
played in this process. Tournaments run one after another, as repeated invocations of the
original would.

The games: the run's total split over max(1, games // N) tournaments as evenly as it goes
(N is the challenge's games_per_tournament), so that the yardstick plays exactly as many
games as kothd did. The draws are Python's own: the table is not kothd's, the work is.
"""
import random
import shlex
import subprocess

from yardcommon import Clock, option, read_spec

BANKS = [(0.54, 0.80), (0.488, 1.10), (0.425, 1.30), (0.387, 1.65), (0.324, 1.95)]
RABBLE = 500
NOT_PAID = ("back out", "all in")
TIMEOUT = 10  # seconds: the original had none; a hung bot must not hang the bench


class Player:
    def __init__(self, bot=None):
        self.bot = bot  # (command, directory) of a real bot; None for the rabble
        self.credits = self.paycheck = 240
        self.employed = True
        self.accounts = [0] * 5
        self.prob = [b[0] for b in BANKS]
        self.odds = [b[1] for b in BANKS]
        self.bribes = []
        self.reset()

    def reset(self):
        self.bet = self.winnings = 0
        self.decision = "stick"
        self.fingered = self.fsuccess = False


def ftext(x):
    """Python 2's str of a float: 12 significant digits, '.0' on integral values."""
    s = "%.12g" % x
    if all(c.isdigit() or c == "-" for c in s):
        s += ".0"
    return s


def bank_index(bettors, total):
    return min(4, (bettors + total // 100000) // 20)


def parse_bet(text):
    t = text[1:] if text[:1] in "+-" else text
    if not t or not t.isascii() or not t.isdigit():
        return 0
    return int(text)


launches = 0


def launch(p, args):
    """Runs the bot once; its stripped stdout, or None when it failed (exit status, time-out)."""
    global launches
    launches += 1
    cmd, cwd = p.bot
    try:
        out = subprocess.run(cmd + " " + " ".join(args), shell=True, cwd=cwd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return None
    return out.stdout.decode("utf-8", "replace").strip(" \t\n\r\v\f")


def standings(bots):
    """Rank, mean, MAD and max of §2.4, with the bots in standings order."""
    credits = [b.credits for b in bots]
    ranks = {}
    for i, b in enumerate(bots):
        ranks[id(b)] = 1 if i == 0 or b.credits == credits[0] else i + 1
    n = len(bots)
    mean = int(sum(credits) / float(n))
    mad = int(sum(abs(c - mean) for c in credits) / float(n))
    return ranks, mean, mad, credits[0]


def args(p, g, rnd, a3, asked, a5, total, a7, bank, st):
    ranks, mean, mad, top = st
    vals = [g, rnd, a3, asked, a5, total, a7, bank, p.credits, p.bet if rnd == 2 else 0, p.paycheck,
            int(p.employed), ranks[id(p)], mean, mad, top] + p.accounts
    return [str(v) for v in vals] + [ftext(v) for v in p.prob + p.odds]


def play(g, bots, rabble, rng):
    """One game of §2: bots are the real players in standings order, re-sorted at the end."""
    st = standings(bots)
    parts = bots + rng.sample(rabble, rng.randint(0, RABBLE))
    rng.shuffle(parts)

    # Round 1 (§2.6).
    bettors, total = [], 0
    for i, p in enumerate(parts):
        bank = bank_index(len(bettors), total)
        if p.bot:
            ans = launch(p, args(p, g, 1, len(parts), i, len(bettors), total, 0, bank, st))
            bet = parse_bet(ans) if ans is not None else 0
        elif rng.random() > p.prob[bank]:
            bet = 0
        else:
            c = p.credits
            bet = 80085 if c > 80085 else 6969 if c > 6969 else 420 if c > 420 else 69
        p.bet = max(0, min(p.credits, bet))
        total += p.bet
        if p.bet > 0:
            bettors.append(p)
    b = bank_index(len(bettors), total)

    # Round 2 (§2.8).
    rng.shuffle(bettors)
    stickers, rs, dc = 0, [], []
    for i, p in enumerate(bettors):
        if p.bot:
            ans = launch(p, args(p, g, 2, len(bettors), i, len(bettors), total, stickers, b, st))
            if ans is None:
                ans, p.bet = "stick", 0
        elif i > 0 and rng.random() < 0.55 - 0.5 * stickers / i:
            ans = "back out"
        else:
            ans = "!guncheck"
        p.decision = ans
        if ans == "back out":
            p.bet = 0
            continue
        stickers += 1
        if p.bot:
            rs.append(p)
            if ans == "double cross":
                dc.append(p)
    f = 1 if bettors and stickers == len(bettors) else 0
    d = len(dc) == 1 or 1 <= len(dc) <= len(rs) // 10

    # Resolution (§2.9).
    pot = 0
    for p in parts:
        base, odds, dec = p.prob[b], p.odds[b], p.decision
        if dec == "all in":
            p.credits = int(odds * (p.credits + 240)) if rng.random() < base else 0
        else:
            p.credits -= p.bet
            if rng.random() < f * base:
                p.winnings = int((odds + 1) * p.bet)
                if dec == "acquire intel":
                    p.odds[b] += 0.00001 * p.winnings
                    p.winnings = 0
                elif dec == "deposit":
                    p.accounts[b] += p.winnings
                    p.winnings = 0
                elif dec == "withdraw":
                    p.winnings += p.accounts[b]
                    p.accounts[b] = 0
                elif dec == "finger":
                    for _ in range(8):
                        t = rs[rng.randrange(len(rs))]
                        if t.decision == "double cross" and not t.fingered:
                            t.fingered = p.fsuccess = True
                            m = t.credits // 6
                            t.credits -= m
                            p.credits += m
                            t.prob[b] -= 0.05
                    if not p.fsuccess:
                        p.odds[b] -= 0.05
                        p.paycheck -= int(0.05 * p.paycheck)
            if dec == "buy guard":
                p.bribes.append(b)
                p.prob[b] += 0.01 * (1 - p.prob[b])
            elif dec == "change jobs":
                p.employed = False
        p.accounts = [a + int(0.014 * a) for a in p.accounts]
        if dec == "finger" and not p.fsuccess:
            pot += p.winnings // 2
        elif (d and dec not in NOT_PAID) or (dec == "double cross" and (not d or p.fingered)):
            pot += p.winnings
    s = sum(1 for p in dc if not p.fingered)
    dc_pot = s * pot // len(dc) if d else 0
    straight = pot - dc_pot

    # Payment (§2.10).
    for p in parts:
        dec = p.decision
        if dec == "double cross" and (not d or p.fingered):
            p.paycheck //= 2
            p.employed = False
            p.winnings = 0
        if not p.employed and rng.randint(1, 20) == 20:
            p.paycheck += p.paycheck // 20
            p.employed = True
        if p.employed and dec not in NOT_PAID:
            p.credits += p.paycheck
        if dec == "double cross" and d and not p.fingered:
            p.credits += p.winnings + dc_pot // s
        elif dec == "finger" and not d and p.fsuccess:
            p.credits += p.winnings // 2
        elif not d:
            p.credits += p.winnings
        if dec not in NOT_PAID + ("double cross",) and (p.fsuccess or dec != "finger") and straight != 0:
            p.credits += p.winnings * straight // pot
        p.credits -= len(p.bribes)
        if p.credits < 0:
            rng.shuffle(p.bribes)
            for _ in range(min(len(p.bribes), -p.credits)):
                k = p.bribes.pop()
                p.prob[k] = (p.prob[k] - 0.01) / 0.99
            p.credits = 0
        p.reset()
    bots.sort(key=lambda p: -p.credits)


def main():
    spec = read_spec()
    if any(b.get("baseline") for b in spec["bots"]):
        raise SystemExit("yardstick: the built-in example bots are played in Go by kothd; bench without baselines")
    roster = [(b["name"], shlex.join(b["run"]), b["dir"]) for b in spec["bots"]]
    n = int(option(spec, "games_per_tournament", 1000))
    games = spec["games"]
    tournaments = max(1, games // n)
    rng = random.Random(spec["seed"])
    score = {name: 0 for name, _, _ in roster}
    clock = Clock()
    for t in range(tournaments):
        length = games // tournaments + (t < games % tournaments)
        bots = [Player((cmd, cwd)) for _, cmd, cwd in roster]
        names = {id(p): name for p, (name, _, _) in zip(bots, roster)}
        rabble = [Player() for _ in range(RABBLE)]
        for g in range(length):
            play(g, bots, rabble, rng)
        for p in bots:
            score[names[id(p)]] += p.credits
    best = max(score, key=score.get)
    clock.report(games, [best, score[best]], launches)


main()
