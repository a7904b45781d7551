import os
import time


class Sleeper(Bot):
    calls = 0

    def make_throw(self, scores, last_round):
        Sleeper.calls += 1
        if Sleeper.calls > 30:
            time.sleep(3600)
        yield sum(self.current_throws) < 12
        yield False
