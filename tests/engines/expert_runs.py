"""A clockless expert's game, recorded: what the determinism and lean-playout
tests compare (tests/engines/test_expert.py, test_lean_kabuki_tricks.py)."""

from __future__ import annotations

from typing import Any

from engines.expert import DEFAULT_WORLDS, ExpertBot, Search
from engines.playout import Playout


def clockless_run(
    game: Any, search: Search, seat: int, players: int, seed: int, worlds: int = DEFAULT_WORLDS
) -> tuple[list[int], list, int]:
    """One game of a clockless expert in `seat` against heuristics: the steps
    each of its decisions spent, the decisions, and the errors it counted."""
    options = game.make_options({})
    expert = ExpertBot(game, search, seat, options, worlds=worlds)
    spent, choices = [], []
    act = expert.act

    def counted(view, legal, rng):
        before = expert.steps
        choices.append(act(view, legal, rng))
        spent.append(expert.steps - before)
        return choices[-1]

    expert.act = counted
    bots = ["heuristic"] * players
    bots[seat] = expert
    Playout(game, players, options, seed, bots).run()
    return spent, choices, expert.errors
