"""Yardstick for Adventurers in the Ruins (codegolf 183101): the original driver's way,
written anew from the rules (docs/games/ruins.md): games of 10 adventurers, turns of
simultaneous decisions then processing in seating order, bids, drops and deaths, the ranking
and points; the pool phase (20 games per bot in groups of 10) then final games among the top
10. It plays exactly as many games as kothd's run did (the final phase stops there rather
than at a 50-point lead). Actions are read by the game module's own convert (the same rules
kothd's harness applies). Character names come from a short list: only flavour.
"""
import math
import random

from yardcommon import Clock, load, option

FIRST = "Eddard Rob Jon Sansa Theon Arya Brandon Richard Hodor Jaime Cersei Tyrion".split()
LAST = "Stark Barathean Lannister Snow Tarley Grayjoy Bolton Stormborn Targaryen".split()


class Game:
    def __init__(self, mod, classes, seed):
        self.mod = mod
        g = self.g = random.Random(seed)
        f = random.Random(g.getrandbits(420))
        self.rooms = {}
        self.count = 0
        seats = []  # [name, bot or None, room, stamina, inventory]
        for c in classes:
            name = "%s %s %d" % (f.choice(FIRST), f.choice(LAST), f.randrange(1000))
            bseed = g.getrandbits(744)
            try:
                bot = c(name, random.Random(bseed))
            except Exception:
                bot = None
            seat = [name, bot, 1, 1000 if bot is not None else 0, []]
            clash = [k for k, s in enumerate(seats) if s[0] == name]
            if clash:
                seats[clash[0]] = seat
            else:
                seats.append(seat)
        self.seats = seats
        self.room(1)
        for s in seats:
            if s[1] is not None:
                try:
                    s[1].enter_ruins()
                except Exception:
                    s[3] = 0

    def room(self, r):
        if r not in self.rooms:
            g, out = self.g, []
            for _ in range(g.randint(r // 3 + 3, r // 2 + 5)):
                w = max(1, g.randint(1, 6) + g.randint(1, 6) - 2)
                v = g.randint(1, 10 * w) + g.randint(1, 5 * r + 10) + g.randint(1, 5 * r + 10)
                self.count += 1
                out.append(self.mod.Treasure("Treasure #%03d" % self.count, v, w))
            self.rooms[r] = out
        return self.rooms[r]

    def turn(self):
        mod, seats = self.mod, self.seats
        active = [s for s in seats if s[3] > 0 and s[2] > 0]
        if not active:
            return False
        actions = []
        for s in active:
            state = mod.RoomState(s[2], list(self.rooms[s[2]]),
                                  [o[0] for o in seats if o is not s and o[2] == s[2]],
                                  list(s[4]), s[3])
            try:
                actions.append(mod.convert(s[1].get_action(state)))
            except Exception:
                actions.append(None)
        bids, dropped, dying = {}, [], []
        for s, a in zip(active, actions):
            carry = sum(t.weight for t in s[4])
            if a is None:
                dying.append(s)
            elif a[0] in ("next", "previous"):
                cost = 10 + math.ceil(carry / 5)
                if s[3] < cost:
                    dying.append(s)
                    continue
                s[2] += 1 if a[0] == "next" else -1
                s[3] -= cost
                if s[2] > 0:
                    self.room(s[2])
                    if s[3] == 0:
                        dying.append(s)
            elif a[0] == "take":
                treasures = self.rooms[s[2]]
                index, bid = a[1], a[2]
                if not -len(treasures) <= index < len(treasures):
                    dying.append(s)
                    continue
                t = treasures[index]
                if bid < t.weight or bid > s[3] or t.weight + carry > 50:
                    dying.append(s)
                    continue
                s[3] -= bid
                bids.setdefault((s[2], index % len(treasures)), []).append((bid, s))
            else:
                s[3] -= 1
                if not -len(s[4]) <= a[1] < len(s[4]):
                    dying.append(s)
                    continue
                dropped.append((s[2], s[4].pop(a[1])))
        taken = {}
        for (r, i), offers in bids.items():
            best = max(b for b, _ in offers)
            winners = [s for b, s in offers if b == best]
            if len(winners) == 1:
                winners[0][4].append(self.rooms[r][i])
                taken.setdefault(r, set()).add(i)
        for r, idx in taken.items():
            self.rooms[r] = [t for k, t in enumerate(self.rooms[r]) if k not in idx]
        for r, t in dropped:
            self.rooms[r].append(t)
        for s in dying:
            s[3] = 0
            self.rooms.setdefault(s[2], []).extend(s[4])
            s[4] = []
        return True

    def points(self):
        """Points by seat index (§2.7)."""
        def key(k):
            s = self.seats[k]
            inv = sorted((t.value for t in s[4]), reverse=True)
            alive = s[3] > 0 or s[2] == 0
            return [alive, sum(inv), -sum(t.weight for t in s[4]), -len(inv)] + inv
        order = sorted(range(len(self.seats)), key=key, reverse=True)
        n, out = len(self.seats), {}
        for p, k in enumerate(order):
            s = self.seats[k]
            out[k] = n - p if (s[3] > 0 or s[2] == 0) and s[4] else 0
        return out


def play(mod, classes, t):
    game = Game(mod, classes, t.getrandbits(1337))
    while game.turn():
        pass
    pts = game.points()
    return [pts.get(k, 0) for k in range(len(game.seats))]


def main():
    spec, mod, classes = load("ruins")
    size = int(option(spec, "game_size", 10))
    pool_games = int(option(spec, "pool_games", 20))
    t = random.Random(spec.get("seed", 0))
    games = spec["games"]
    bots = list(range(len(classes)))
    score = [0] * len(classes)
    played = 0
    clock = Clock()

    def game_of(group):
        nonlocal played
        seating = list(group)
        t.shuffle(seating)
        for k, p in enumerate(play(mod, [classes[i] for i in seating], t)):
            if k < len(seating):
                score[seating[k]] += p
        played += 1

    finalists = bots
    if len(bots) > size:
        left = []
        for _ in range(pool_games):
            t.shuffle(bots)
            group, left = left, []
            for x in bots:
                while len(group) >= size and played < games:
                    game_of(group[:size])
                    group = group[size:]
                (left if x in group else group).append(x)
            left += group
            while len(left) >= size and played < games:
                game_of(left[:size])
                left = left[size:]
        finalists = sorted(bots, key=lambda i: (-score[i], i))[:size]
        for i in finalists:
            score[i] = 0
    else:
        finalists = bots + [None] * (size - len(bots))
    while played < games:
        t.shuffle(finalists)
        group = [i for i in finalists if i is not None]
        seating = finalists
        pts = play(mod, [classes[i] if i is not None else mod.Drunkard for i in seating], t)
        for k, i in enumerate(seating):
            if i is not None and k < len(pts):
                score[i] += pts[k]
        played += 1
        if not group:
            break
    lead = max(range(len(classes)), key=lambda i: score[i])
    clock.report(played, [classes[lead].__name__, score[lead]])


if __name__ == "__main__":
    main()
