"""A clockless expert's game, recorded: what the determinism and lean-playout
tests compare (tests/engines/test_expert.py, test_lean_kabuki_tricks.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engines.core import Bot
from engines.expert import DEFAULT_WORLDS, ExpertBot, Search
from engines.playout import Playout


class _Recorded:
    """The expert in its seat, recording each decision and the steps it spent."""

    def __init__(self, expert: ExpertBot) -> None:
        self.expert = expert
        self.blind, self.observes = expert.blind, expert.observes
        self.spent: list[int] = []
        self.choices: list[Any] = []

    def observe(self, event: Any) -> None:
        self.expert.observe(event)

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        before = self.expert.steps
        self.choices.append(self.expert.act(view, legal, rng))
        self.spent.append(self.expert.steps - before)
        return self.choices[-1]


def clockless_run(
    game: Any, search: Search, seat: int, players: int, seed: int, worlds: int = DEFAULT_WORLDS
) -> tuple[list[int], list, int]:
    """One game of a clockless expert in `seat` against heuristics: the steps
    each of its decisions spent, the decisions, and the errors it counted."""
    options = game.make_options({})
    expert = ExpertBot(game, search, seat, options, worlds=worlds)
    recorded = _Recorded(expert)
    bots: list[str | Bot] = ["heuristic"] * players
    bots[seat] = recorded
    Playout(game, players, options, seed, bots).run()
    return recorded.spent, recorded.choices, expert.errors
