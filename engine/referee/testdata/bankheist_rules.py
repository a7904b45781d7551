# The worked examples of Bank Heist's rules (the original controller's, verified against it
# with scripted draws) run against examples/bankheist/referee.py: the referee's resolution
# and payment with the same draws give the same credits. Run by bankheist_test.go:
#   python3 bankheist_rules.py PATH/TO/referee.py
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("referee", sys.argv[1])
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)
failures = []


class Draws:
    """Scripted draws: u for random(), ints for randint(), picks (indices) for choice()."""
    def __init__(self, us=(), ints=(), picks=()):
        self.us, self.ints, self.picks = list(us), list(ints), list(picks)

    def random(self):
        return self.us.pop(0)

    def randint(self, a, b):
        return self.ints.pop(0) if self.ints else a

    def choice(self, seq):
        return seq[self.picks.pop(0)]

    def shuffle(self, x):
        pass


def player(credits=240, bet=0, dec="stick"):
    p = ref.Player(seat=0)
    p.credits, p.bet, p.dec = credits, bet, dec
    return p


def check(name, got, want):
    if got != want:
        failures.append("%s: %r, want %r" % (name, got, want))


# 1. Bank selection.
for (n, t), want in [((0, 0), 0), ((19, 99999), 0), ((19, 100000), 1), ((30, 2050000), 2), ((59, 150000), 3), ((75, 1000000), 4), ((100, 0), 4)]:
    check("bank index (%d, %d)" % (n, t), ref.bank_index(n, t), want)

# 3, 4. A straight win at City (odds 1.1) and the rounding trap at State (odds 1.3).
for bank, want in [(1, 1350), (2, 1369)]:
    p = player(1000, 100)
    ref.settle([p], bank, 1, [p], [], Draws([0.1]))
    check("straight win at bank %d" % bank, p.credits, want)

# 5. All in at bank 0, and a non-bettor beside it.
a, n = player(500, 50, "all in"), player(500)
ref.settle([a, n], 0, 1, [a], [], Draws([0.5, 0.9]))
check("all in", (a.credits, n.credits), (592, 740))

# 6. Collapse: one of three bettors backs out.
s, b, a = player(240, 50), player(240, 0, "back out"), player(240, 30, "all in")
ref.settle([s, b, a], 0, 0, [s, a], [], Draws([0.1, 0.1, 0.0]))
check("collapse", (s.credits, b.credits, a.credits), (430, 240, 384))

# 7. One double-crosser succeeds.
A, B, C = player(240, 10, "double cross"), player(240, 100), player(240, 50)
ref.settle([A, B, C], 0, 1, [A, B, C], [A], Draws([0.1] * 3))
check("one double-crosser", (A.credits, B.credits, C.credits), (776, 380, 430))

# 8. Two double-crossers fail.
A, A2, B, C, E = player(240, 10, "double cross"), player(240, 20, "double cross"), player(240, 100), player(240, 50), player(240, 30)
ref.settle([A, A2, B, C, E], 0, 1, [A, A2, B, C, E], [A, A2], Draws([0.1, 0.1, 0.1, 0.1, 0.9], ints=[1, 20]))
check("two double-crossers", [p.credits for p in (A, A2, B, C, E)], [230, 346, 740, 610, 450])

# 9. A finger hits on its 4th pick.
F, X, S = player(300, 30, "finger"), player(600, 60, "double cross"), player(300, 100)
ref.settle([F, X, S], 0, 1, [F, X, S], [X], Draws([0.1] * 3, ints=[1], picks=[0, 2, 0, 1, 0, 0, 0, 0]))
check("finger hits", [p.credits for p in (F, X, S)], [664, 440, 620])
check("fingered probability", round(X.prob[0], 10), 0.49)

# 10. A finger misses.
F, X, S = player(300, 30, "finger"), player(600, 60), player(300, 100)
ref.settle([F, X, S], 0, 1, [F, X, S], [], Draws([0.1] * 3, picks=[0] * 8))
check("finger misses", [p.credits for p in (F, X, S)], [552, 996, 800])
check("failed fingerer", (round(F.odds[0], 10), F.pay), (0.75, 228))

# 11. Deposit, intel and guard at bank 1; 12. withdraw.
d, i, g = player(1000, 100, "deposit"), player(1000, 100, "acquire intel"), player(1000, 100, "buy guard")
w = player(1140, 100, "withdraw")
w.acct[1] = 1000
ref.settle([d, i, g, w], 1, 1, [d, i, g, w], [], Draws([0.1, 0.1, 0.9, 0.1]))
check("deposit", (d.acct[1], d.credits), (212, 1140))
check("intel", (round(i.odds[1], 10), i.credits), (1.1021, 1140))
check("guard", (round(g.prob[1], 10), g.credits, len(g.bribes)), (0.49312, 1139, 1))
check("withdraw", (w.acct[1], w.credits), (0, 2490))

# 13. Arguments' float text.
check("text of a guarded probability", ref.ftext(0.54 + 0.01 * (1 - 0.54)), "0.5446")
check("text of odds after two failed fingers", ref.ftext(1.1 - 0.05 - 0.05), "1.0")
check("text of odds after intel", ref.ftext(0.8 + 0.00001 * 6969), "0.86969")
check("text of 1e-05", ref.ftext(0.00001), "1e-05")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
