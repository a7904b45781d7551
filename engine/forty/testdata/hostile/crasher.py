class Crasher(Bot):
    calls = 0

    def make_throw(self, scores, last_round):
        Crasher.calls += 1
        if Crasher.calls > 30:
            raise RuntimeError("turned bad")
        yield sum(self.current_throws) < 12
        yield False
