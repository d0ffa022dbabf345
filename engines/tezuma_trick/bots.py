"""House bots for Tezuma Trick."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


class RandomBot:
    """Any legal action, uniformly: picks, plays and ability uses alike."""

    blind = True  # ignores the view: the simulator skips building it

    def __init__(self, seat: int, options: Any) -> None:
        self.seat = seat

    def observe(self, event: Any) -> None:
        return None

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        return legal[rng.randrange(len(legal))] if legal else None


BOTS = {"random": RandomBot, "heuristic": RandomBot}
