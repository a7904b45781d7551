#!/usr/bin/env python3
"""King of the Hill: Bank Heist (codegolf question 115303), refereed for kothd.

The rules of the original controller (quintopia's bankheist.py, Python 2), one referee
"game" being one whole tournament: credits, jobs, accounts and guards carry from one heist
to the next, so they live in one referee process. Bots are programs launched once per
decision (the referee-argv engine) with the controller's 31 arguments; the 500 rabble
players are the referee's. Each seat's score is its credits after the tournament.
options.games_per_tournament is N: a tournament is a uniform N to 1.1 N heists.
"""
import json
import random
import re
import sys

BANKS = [(0, 0.54, 0.80), (20, 0.488, 1.10), (40, 0.425, 1.30), (60, 0.387, 1.65), (80, 0.324, 1.95)]
RABBLE = 500
BET = re.compile(r"[+-]?[0-9]+")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def ftext(x):
    """Python 2's str() of a float: 12 significant digits, '.0' on integral values."""
    t = "%.12g" % x
    return t + ".0" if re.fullmatch(r"-?[0-9]+", t) else t


class Player:
    def __init__(self, seat=None):
        self.seat = seat  # None: rabble
        self.credits = self.pay = 240
        self.employed = True
        self.acct = [0] * 5
        self.prob = [b[1] for b in BANKS]
        self.odds = [b[2] for b in BANKS]
        self.bribes = []
        self.reset()

    def reset(self):
        self.bet, self.dec, self.win = 0, "stick", 0
        self.fingered = self.fsucc = False


def bank_index(bettors, total):
    return min(4, (bettors + total // 100000) // 20)


def ask(p, args, expect=None):
    """The bot's answer, None on a fault (kothd counts it)."""
    req = {"ask": p.seat, "msg": " ".join(str(a) for a in args)}
    if expect:
        req["expect"] = expect
    send(req)
    a = receive()
    return None if "fault" in a else a["reply"]


def heist(g, real, order, rabble, rng):
    n = len(order)
    first = order[0].credits
    rank = {id(p): 1 if i == 0 or p.credits == first else i + 1 for i, p in enumerate(order)}
    mean = int(sum(p.credits for p in order) / n)
    mad = int(sum(abs(p.credits - mean) for p in order) / n)
    stats = lambda p: ([p.pay, int(p.employed), rank[id(p)], mean, mad, first] + p.acct
                       + [ftext(x) for x in p.prob] + [ftext(x) for x in p.odds])
    parts = order + rng.sample(rabble, rng.randint(0, RABBLE))
    rng.shuffle(parts)
    bettors, total, betting = 0, 0, []
    for i, p in enumerate(parts):  # round 1: the bets
        so_far = bank_index(bettors, total)
        if p.seat is not None:
            r = ask(p, [g, 1, len(parts), i, bettors, total, 0, so_far, p.credits, 0] + stats(p), BET.pattern)
            v = int(r) if r is not None else 0
        elif rng.random() > p.prob[so_far]:
            v = 0
        else:
            v = 80085 if p.credits > 80085 else 6969 if p.credits > 6969 else 420 if p.credits > 420 else 69
        p.bet = max(0, min(p.credits, v))
        total += p.bet
        if p.bet > 0:
            bettors += 1
            betting.append(p)
    b = bank_index(bettors, total)
    rng.shuffle(betting)
    stick, rs, dc = 0, [], []
    for i, p in enumerate(betting):  # round 2: the decisions
        if p.seat is not None:
            r = ask(p, [g, 2, bettors, i, bettors, total, stick, b, p.credits, p.bet] + stats(p))
            if r is None:
                r, p.bet = "stick", 0
        elif i == 0:
            r = "!guncheck"
        else:
            r = "back out" if rng.random() < 0.55 - 0.5 * stick / i else "!guncheck"
        p.dec = r
        if r == "back out":
            p.bet = 0
            continue
        stick += 1
        if p.seat is not None:
            rs.append(p)
            if r == "double cross":
                dc.append(p)
    settle(parts, b, 1 if bettors and stick == bettors else 0, rs, dc, rng)
    order.sort(key=lambda p: -p.credits)


def settle(parts, b, f, rs, dc, rng):
    """Resolution and payment of a heist at bank b, survival factor f, real stickers rs and
    double-crossers dc, every participant's bet and decision made."""
    d = len(dc) == 1 or 1 <= len(dc) <= len(rs) // 10
    pot = 0
    for p in parts:  # resolution
        base, odds = p.prob[b], p.odds[b]
        if p.dec == "all in":
            p.credits = int(odds * (p.credits + 240)) if rng.random() < base else 0
        else:
            p.credits -= p.bet
            if rng.random() < f * base:
                p.win = int((odds + 1) * p.bet)
                if p.dec == "acquire intel":
                    p.odds[b] += 0.00001 * p.win
                    p.win = 0
                elif p.dec == "deposit":
                    p.acct[b] += p.win
                    p.win = 0
                elif p.dec == "withdraw":
                    p.win += p.acct[b]
                    p.acct[b] = 0
                elif p.dec == "finger":
                    for _ in range(8):
                        t = rng.choice(rs)
                        if t.dec == "double cross" and not t.fingered:
                            t.fingered = p.fsucc = True
                            cut = t.credits // 6
                            t.credits -= cut
                            p.credits += cut
                            t.prob[b] -= 0.05
                    if not p.fsucc:
                        p.odds[b] -= 0.05
                        p.pay -= int(0.05 * p.pay)
            if p.dec == "buy guard":
                p.bribes.append(b)
                p.prob[b] += 0.01 * (1 - p.prob[b])
            elif p.dec == "change jobs":
                p.employed = False
        p.acct = [a + int(0.014 * a) for a in p.acct]
        if p.dec == "finger" and not p.fsucc:
            pot += p.win // 2
        elif (d and p.dec not in ("all in", "back out")) or (p.dec == "double cross" and (not d or p.fingered)):
            pot += p.win
    won = sum(1 for p in dc if not p.fingered)
    dc_pot = won * pot // len(dc) if d else 0
    straight = pot - dc_pot
    for p in parts:  # payment
        if p.dec == "double cross" and (not d or p.fingered):
            p.pay //= 2
            p.employed, p.win = False, 0
        if not p.employed and rng.randint(1, 20) == 20:
            p.pay += p.pay // 20
            p.employed = True
        if p.employed and p.dec not in ("back out", "all in"):
            p.credits += p.pay
        if p.dec == "double cross" and d and not p.fingered:
            p.credits += p.win + dc_pot // won
        elif p.dec == "finger" and not d and p.fsucc:
            p.credits += p.win // 2
        elif not d:
            p.credits += p.win
        if p.dec not in ("back out", "all in", "double cross") and (p.fsucc or p.dec != "finger") and straight:
            p.credits += p.win * straight // pot
        p.credits -= len(p.bribes)
        if p.credits < 0 and p.bribes:
            rng.shuffle(p.bribes)
            for _ in range(min(len(p.bribes), -p.credits)):
                k = p.bribes.pop()
                p.prob[k] = (p.prob[k] - 0.01) / 0.99
        p.credits = max(p.credits, 0)
        p.reset()


def main():
    game = receive()
    n = int((game.get("options") or {}).get("games_per_tournament", 1000))
    rng = random.Random(game["seed"])
    real = [Player(s) for s in range(game["seats"])]
    order, rabble = list(real), [Player() for _ in range(RABBLE)]
    for g in range(rng.randint(n, int(1.1 * n))):
        heist(g, real, order, rabble, rng)
    send({"result": {"scores": [p.credits for p in real]}})


if __name__ == "__main__":
    main()
