"""House bots: `random` (uniform over legal actions) and `heuristic`."""

from __future__ import annotations

import random


class RandomBot:
    """A uniformly random legal action; ignores the view (blind)."""

    blind = True
    observes = False

    def __init__(self, seat: int, options=None) -> None:
        self.seat = seat

    def observe(self, event) -> None:
        pass

    def act(self, view, legal, rng: random.Random):
        return legal[int(rng.random() * len(legal))]


class HeuristicBot(RandomBot):
    blind = False
