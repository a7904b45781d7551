class MemoryHog(Bot):
    calls = 0
    hoard = []

    def make_throw(self, scores, last_round):
        MemoryHog.calls += 1
        if MemoryHog.calls > 30:
            while True:
                MemoryHog.hoard.append(bytearray(32 << 20))
        yield sum(self.current_throws) < 12
        yield False
