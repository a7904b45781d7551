"""The answers of the forty benchmark field (testdata/fortyfield), as their authors would
post them: a heading, prose, and the code. make_field.py turns them into the Stack Exchange
API's answer JSON (codegolf/177765/answers.1.json), which kothd bench --snapshot reads.

Written for the benchmark in the styles of the real question's answers: fixed thresholds,
chasing the leader in the last round, score arithmetic, tables filled once, a few drawing
from numpy or random. None inspects the stack and none is expensive per call: the field is
there to measure what kothd costs per decision, not what one bot costs.
"""

ANSWERS = []


def answer(author, prose, code, heading=None, score=1, after=""):
    ANSWERS.append(dict(author=author, prose=prose, code=code, heading=heading, score=score, after=after))


answer("Amelia Thorncroft", "Keeps throwing until the round is worth 20; in the final round it chases the leader.", '''
class GoTwentyBot(Bot):
    def make_throw(self, scores, last_round):
        target = min(20, self.end_score - scores[self.index])
        if last_round:
            target = max(scores) - scores[self.index] + 1
        while sum(self.current_throws) < target:
            yield True
        yield False
''', score=9)

answer("Kristof Varga", "The classic: stop at 16, but never go past 40 outside the final round.", '''
class SixteenBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(scores):
                    break
            elif t >= 16 or me + t >= 40:
                break
            yield True
        yield False
''', score=12)

answer("quarkmonger", "Two throws, always. Simple bots win sometimes.", '''
class TwoAndDoneBot(Bot):
    def make_throw(self, scores, last_round):
        yield True
        yield False
''', score=2)

answer("Lena Okafor", "Throws a fixed number of times, more when behind.", '''
class CountingBot(Bot):
    def make_throw(self, scores, last_round):
        behind = max(scores) - scores[self.index]
        n = 3 if behind < 10 else 4 if behind < 20 else 5
        if last_round:
            n = 100
        for _ in range(n):
            if last_round and scores[self.index] + sum(self.current_throws) > max(scores):
                break
            yield True
        yield False
''', score=7)

answer("Seán O'Brien", "Stops when ahead by a margin, otherwise pushes.", '''
class LeadByFiveBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        others = [s for i, s in enumerate(scores) if i != self.index]
        best = max(others)
        while True:
            t = sum(self.current_throws)
            if me + t >= best + 5 and not last_round and t >= 10:
                break
            if last_round and me + t > best:
                break
            if not last_round and me + t >= 40:
                break
            yield True
        yield False
''', score=6)

answer("Bits & Bobs", "A bit mask per situation: each bit says whether to throw once more.", '''
class MaskBot(Bot):
    PLAN = {0: 0b11111, 1: 0b111, 2: 0b1111111}

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            while me + sum(self.current_throws) <= max(scores):
                yield True
            yield False
            return
        gap = max(scores) - me
        mask = self.PLAN[0 if gap < 8 else 2 if gap > 20 else 1]
        while mask >> (len(self.current_throws) - 1) & 1 and me + sum(self.current_throws) < 40:
            yield True
        yield False
''', score=8)

answer("pelikan", "Uses the expected value of one more throw: 5/6 of 3 points against 1/6 of the round.", '''
class ExpectationBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                go = me + t <= max(scores)
            else:
                go = 2.5 - t / 6.0 > 0 and me + t < 40
            if not go:
                break
            yield True
        yield False
''', score=10)

answer("Marta Quiroga", "Flips a coin for every throw.", '''
class CoinFlipBot(Bot):
    def make_throw(self, scores, last_round):
        while random.random() < 0.6:
            yield True
        yield False
''', score=2)

answer("Noor Haddad", "A step table: the nearer 40, the earlier it stops.", '''
class StairsBot(Bot):
    STAIRS = ((10, 21), (20, 18), (28, 15), (34, 11), (40, 8))

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            goal = max(scores) - me + 1
        else:
            for below, stop in self.STAIRS:
                if me < below:
                    goal = stop
                    break
            else:
                goal = 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=4)

answer("Viktor Lindqvist", "Builds a table of stopping totals with numpy once, then looks it up.", '''
class NumpyTableBot(Bot):
    STOP = None

    @classmethod
    def fill(cls):
        mine = np.arange(45)
        gap = np.arange(-45, 46)
        m, g = np.meshgrid(mine, gap, indexing="ij")
        stop = 20 + np.clip(g, -10, 20) // 3
        stop = np.minimum(stop, np.maximum(40 - m, 1) + 3)
        cls.STOP = stop.tolist()

    def make_throw(self, scores, last_round):
        if NumpyTableBot.STOP is None:
            NumpyTableBot.fill()
        me = scores[self.index]
        if last_round:
            while me + sum(self.current_throws) <= max(scores):
                yield True
            yield False
            return
        best = max(s for i, s in enumerate(scores) if i != self.index)
        stop = self.STOP[min(me, 44)][max(min(best - me, 45), -45) + 45]
        while sum(self.current_throws) < stop:
            yield True
        yield False
''', score=11)

answer("Hamish McTavish", "Keeps a bigger margin the longer the game goes.", '''
class PatientBot(Bot):
    def __init__(self, *args):
        super().__init__(*args)
        self.turn = 0

    def make_throw(self, scores, last_round):
        self.turn += 1
        me = scores[self.index]
        goal = 12 + min(self.turn, 8)
        if last_round:
            goal = max(scores) - me + 1
        elif me + goal > 40:
            goal = 40 - me
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=14)

answer("trollfighter", "Three throws. Then three more if nobody is close.", '''
class ThreeOrSixBot(Bot):
    def make_throw(self, scores, last_round):
        n = 6 if max(scores) < 25 else 3
        if last_round:
            n = 50
        for i in range(n):
            if last_round and scores[self.index] + sum(self.current_throws) > max(scores):
                break
            yield True
        yield False
''', score=-1)

answer("Priya Raman", "Throws until its score beats the average of the others by 10.", '''
class AboveAverageBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        others = [s for i, s in enumerate(scores) if i != self.index]
        avg = sum(others) / len(others)
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(others):
                    break
            elif me + t >= min(avg + 10 + t // 2, 40) or t >= 22:
                break
            yield True
        yield False
''', score=5)

answer("Oskar Brandt", "Draws its target for the round from numpy, like rolling a die for courage.", '''
class CourageBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            goal = max(scores) - me + 1
        else:
            goal = int(np.random.randint(12, 24))
            goal = min(goal, 40 - me) if me < 40 else 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=1)

answer("jdoe_1999", "Sixteen, but counting the number of throws instead of points.", '''
class FiveThrowsBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while len(self.current_throws) < 5:
            if not last_round and me + sum(self.current_throws) >= 40:
                break
            yield True
        while last_round and me + sum(self.current_throws) <= max(scores):
            yield True
        yield False
''', score=0)

answer("Felix Aurelius", "Gets close to 40 in two big rounds, then finishes with small ones.", '''
class TwoBigStepsBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            goal = max(scores) - me + 1
        elif me < 20:
            goal = 20
        else:
            goal = max(40 - me, 5)
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=2)

answer("Chiara Bellini", "Aims for a bank of 40 exactly when it can, else 18.", '''
class ExactFortyBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(scores):
                    break
            elif me + t >= 40 or (t >= 18 and 40 - me - t > 6):
                break
            yield True
        yield False
''', score=6)

answer("Ben Okonkwo", "Copies the pace of the leader: the leader's score over the rounds so far.", '''
class PaceBot(Bot):
    def __init__(self, *args):
        super().__init__(*args)
        self.rounds = 0

    def make_throw(self, scores, last_round):
        self.rounds += 1
        me = scores[self.index]
        pace = max(scores) / self.rounds if self.rounds else 10
        goal = max(12, min(24, int(pace) + 6))
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=1)

answer("Yuki Tanabe", "Returns a list instead of a generator: throw exactly three times.", '''
class ListBot(Bot):
    def make_throw(self, scores, last_round):
        if last_round:
            return [True] * 12 + [False]
        return [True, True, True, False]
''', score=7)

answer("Dmitri Volkov", "Keeps statistics of every round it played across games in class attributes.", '''
class StatsBot(Bot):
    rounds = 0
    banked = 0

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        avg = StatsBot.banked / StatsBot.rounds if StatsBot.rounds else 10
        goal = 15 if avg > 8 else 18
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        StatsBot.rounds += 1
        StatsBot.banked += sum(self.current_throws)
        yield False
''', score=5)

answer("Ravi Menon", "Only pushes hard in the final round; otherwise a careful 12.", '''
class CarefulBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            while me + sum(self.current_throws) <= max(scores):
                yield True
        else:
            while sum(self.current_throws) < 12 and me + sum(self.current_throws) < 40:
                yield True
        yield False
''', score=4)

answer("Ingrid Solberg", "A tie is a win: in the final round, matching the leader is enough.", '''
class TieIsFineBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = 17
        if last_round:
            goal = max(scores) - me
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=3)

answer("ohmygoat", "Throws while the product of its throws stays below 100. Why not.", '''
class ProductBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            p = 1
            for d in self.current_throws:
                p *= d
            if last_round:
                if me + sum(self.current_throws) > max(scores):
                    break
            elif p >= 100 or me + sum(self.current_throws) >= 40:
                break
            yield True
        yield False
''', score=2)

answer("Astrid Holm", "Adaptive: the more players are above 30, the sooner it takes what it has.", '''
class NervousBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        close = sum(1 for s in scores if s >= 30)
        goal = 20 - 2 * close
        if last_round:
            goal = max(scores) - me + 1
        goal = max(goal, 6)
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=3)

answer("Tomasz Wiśniewski", "Two bots: one goes to 25, its cautious sister to 14.", '''
class TwentyFiveBot(Bot):
    def make_throw(self, scores, last_round):
        goal = 25
        if last_round:
            goal = max(scores) - scores[self.index] + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False


class FourteenBot(Bot):
    def make_throw(self, scores, last_round):
        goal = 14
        if last_round:
            goal = max(scores) - scores[self.index] + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', heading="TwentyFiveBot and FourteenBot", score=5)

answer("Camille Dubois", "Stalks the second-best player instead of the leader.", '''
class SecondPlaceBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        ranked = sorted(scores, reverse=True)
        target = ranked[1] if ranked[0] == me else ranked[0]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > ranked[0]:
                    break
            elif me + t > target + 3 and t >= 8 or me + t >= 40 or t >= 24:
                break
            yield True
        yield False
''', score=2)

answer("Mateo Herrera", "Uses numpy's cumulative sums to look at the round.", '''
class CumsumBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            run = np.cumsum(self.current_throws)[-1]
            if last_round:
                if me + run > max(scores):
                    break
            elif run >= 17 or me + run >= 40:
                break
            yield True
        yield False
''', score=3)

answer("Greta Lindgren", "Remembers what it scored last round and tries to do a little better.", '''
class ImproverBot(Bot):
    def __init__(self, *args):
        super().__init__(*args)
        self.last = 12

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = min(self.last + 2, 24)
        if last_round:
            goal = max(scores) - me + 1
        elif me + goal > 40:
            goal = 40 - me
        while sum(self.current_throws) < goal:
            yield True
        self.last = max(sum(self.current_throws), 10)
        yield False
''', score=1)

answer("Hiro Nakamura", "Ten, like the example, but finishes games.", '''
class TenPlusBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = 10 if me < 30 else 40 - me
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=4)

answer("Sophie Wagner", "Gambles everything when far behind, banks early when ahead.", '''
class GamblerBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        lead = me - max(s for i, s in enumerate(scores) if i != self.index)
        if last_round:
            goal = 1 - lead
        elif lead > 10:
            goal = 8
        elif lead < -15:
            goal = 30
        else:
            goal = 16
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=6)

answer("Arjun Patel", "Rolls a random target between 10 and 20 each round with the module's random.", '''
class RandomTargetBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = random.randint(10, 20)
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=2)

answer("Elena Petrova", "Counts how many players can still end the game this round.", '''
class ThreatBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        threats = len([s for s in scores if s >= 25]) - (me >= 25)
        goal = 15 + 3 * threats
        if last_round:
            goal = max(scores) - me + 1
        elif me + goal > 40:
            goal = 40 - me
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=8)

answer("Lucas Moreau", "Throws while the average of its throws is at least 3.", '''
class AverageBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            ct = self.current_throws
            if last_round:
                if me + sum(ct) > max(scores):
                    break
            elif sum(ct) / len(ct) < 3 and len(ct) > 2 or sum(ct) >= 20 or me + sum(ct) >= 40:
                break
            yield True
        yield False
''', score=1)

answer("Aisha Bello", "Sixteen, or twenty when behind by more than ten.", '''
class BehindBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = 20 if max(scores) - me > 10 else 16
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal and (last_round or me + sum(self.current_throws) < 40):
            yield True
        yield False
''', score=5)

answer("Jonas Becker", "The optimal single-player strategy has a threshold near 20; this rounds it to 19.", '''
class NineteenBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        if last_round:
            while me + sum(self.current_throws) <= max(scores):
                yield True
            yield False
            return
        while sum(self.current_throws) < 19 and me + sum(self.current_throws) < 40:
            yield True
        yield False
''', score=7)

answer("Zhang Wei", "Probability of reaching the leader with k more throws, from a small table built once.", '''
class ReachBot(Bot):
    REACH = None

    @staticmethod
    def build():
        # REACH[n][k]: probability that k throws avoid a 6 and add at least n points
        dist = {0: 1.0}
        table = [[0.0] * 12 for _ in range(61)]
        for k in range(12):
            for n in range(61):
                table[n][k] = sum(p for s, p in dist.items() if s >= n)
            nxt = {}
            for s, p in dist.items():
                for d in range(1, 6):
                    nxt[s + d] = nxt.get(s + d, 0.0) + p / 6
            dist = nxt
        return table

    def make_throw(self, scores, last_round):
        if ReachBot.REACH is None:
            ReachBot.REACH = ReachBot.build()
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(scores):
                    break
            else:
                need = max(min(40 - me - t, 60), 0)
                if need == 0 or t >= 15 and ReachBot.REACH[need][2] < 0.3:
                    break
            yield True
        yield False
''', score=9)

answer("Maria Santos", "Throws more in the early game, less in the late game.", '''
class EarlyBirdBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        stage = max(scores)
        goal = 22 if stage < 15 else 17 if stage < 30 else 12
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=3)

answer("Omar Farouk", "Keeps a running estimate of how often it loses a round to a 6, per process.", '''
class SixCounterBot(Bot):
    sixes = 1
    rounds = 6

    def make_throw(self, scores, last_round):
        SixCounterBot.rounds += 1
        me = scores[self.index]
        risk = SixCounterBot.sixes / SixCounterBot.rounds
        goal = 14 if risk > 0.4 else 18
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False

    def update_state(self, current_throws):
        if len(current_throws) == 1 and current_throws[0] == 6:
            SixCounterBot.sixes += 1
        super().update_state(current_throws)
''', score=2)

answer("Fatima Zahra", "Plays like the original sample, but with a goal that grows when nobody scores.", '''
class SlowGameBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        total = sum(scores)
        goal = 10 if total > 10 * len(scores) else 18
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=1)

answer("Pieter de Vries", "In the last round throw until strictly ahead; otherwise throw until 4 throws or 15 points.", '''
class FourOrFifteenBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(scores):
                    break
            elif len(self.current_throws) >= 4 or t >= 15 or me + t >= 40:
                break
            yield True
        yield False
''', score=4)

answer("Kofi Mensah", "A numpy draw per round decides whether to be bold.", '''
class MoodBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        bold = np.random.random() < 0.3
        goal = 24 if bold else 14
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=2)

answer("Lea Fischer", "Ends the game as fast as possible: go straight for 40 when it can.", '''
class RushBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = 40 - me if me >= 22 else 22
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=3)

answer("Daniel Cohen", "Doubles down after a bad round.", '''
class RevengeBot(Bot):
    def __init__(self, *args):
        super().__init__(*args)
        self.prev = None

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        lost = self.prev is not None and me == self.prev
        self.prev = me
        goal = 22 if lost else 15
        if last_round:
            goal = max(scores) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=1)

answer("Sara Lindahl", "Stops when the next throw's expected loss exceeds its gain, with a bonus for ending the game.", '''
class MarginalBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        best = max(s for i, s in enumerate(scores) if i != self.index)
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > best:
                    break
            else:
                gain = 2.5 + (3 if me + t + 3 >= 40 and me + t + 3 > best else 0)
                loss = t / 6.0
                if gain <= loss or me + t >= 40:
                    break
            yield True
        yield False
''', score=6)

answer("Niko Virtanen", "Mirrors the leader: wants the leader's lead as its round total.", '''
class MirrorBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        goal = max(max(scores) - me, 10)
        if last_round:
            goal = max(scores) - me + 1
        goal = min(goal, 26)
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=2)

answer("Ana Ribeiro", "A set of known-good totals; stops as soon as the round total is in it.", '''
class LuckyNumbersBot(Bot):
    LUCKY = {15, 16, 17, 18, 19, 20, 21, 22}

    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            t = sum(self.current_throws)
            if last_round:
                if me + t > max(scores):
                    break
            elif t in self.LUCKY or t > 22 or me + t >= 40:
                break
            yield True
        yield False
''', score=3)

answer("Rafael Costa", "Uses numpy to weigh its target by everyone's scores.", '''
import numpy as np


class WeightedBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        s = np.array(scores)
        pressure = float((s >= 30).mean())
        goal = int(18 - 6 * pressure)
        if last_round:
            goal = int(s.max()) - me + 1
        while sum(self.current_throws) < goal:
            yield True
        yield False
''', score=4)

answer("Ilse Jansen", "Keeps going while every throw so far was 3 or more.", '''
class HotStreakBot(Bot):
    def make_throw(self, scores, last_round):
        me = scores[self.index]
        while True:
            ct = self.current_throws
            t = sum(ct)
            if last_round:
                if me + t > max(scores):
                    break
            elif (min(ct) < 3 and t >= 12) or t >= 24 or me + t >= 40:
                break
            yield True
        yield False
''', score=2)
