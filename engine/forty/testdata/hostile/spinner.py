class Spinner(Bot):
    calls = 0

    def make_throw(self, scores, last_round):
        Spinner.calls += 1
        if Spinner.calls > 30:
            while True:
                pass
        yield sum(self.current_throws) < 12
        yield False
