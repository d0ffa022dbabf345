"""Kabuki house bots.

- `random`: blind; calls Stop with a small probability whenever it may, else
  places on a random pile.
- `memory` (and `heuristic`, always with perfect memory): remembers every card
  it sees in its seat's events (placements, Stop reveals), forgetting each
  covered card with the table's `bot_memory` probability (the tops stay in
  sight); calls Stop when it knows of a
  match, and places where it knows of the fewest matches.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engines.core import BotFactory
from engines.kabuki_masks.actions import Place, Stop
from engines.kabuki_masks.cards import COPIES, PILES
from engines.kabuki_masks.events import Placed, RoundStarted, Stopped
from engines.kabuki_masks.options import forget_probability

RANDOM_STOP_PROBABILITY = 0.05
# An unknown (forgotten) covered card counts as this much of a match when
# choosing where to place: known matches weigh most.
UNKNOWN_RISK = 0.1


class RandomBot:
    blind = True
    observes = False

    def __init__(self, seat: int, options: Any = None) -> None:
        self.seat = seat

    def observe(self, event: Any) -> None:
        pass

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if not legal:
            return None
        first = legal[0]
        if type(first) is Stop and rng.random() < RANDOM_STOP_PROBABILITY:
            return first
        places = legal[1:] if type(first) is Stop else legal
        return rng.choice(places) if places else None


class MemoryBot:
    blind = False
    observes = True

    def __init__(self, seat: int, forget: float = 0.0) -> None:
        self.seat = seat
        self.forget = forget
        # What it believes each pile holds, bottom to top (None: forgotten).
        self.piles: list[list[int | None]] = [[] for _ in range(PILES)]
        # Covered cards (pile, index) not yet through `_recall`, which may forget them.
        self.fresh: list[tuple[int, int]] = []

    def observe(self, event: Any) -> None:
        kind = type(event)
        if kind is Placed:
            pile = self.piles[event.pile]
            pile.append(event.card)
            if self.forget and len(pile) > 1:
                self.fresh.append((event.pile, len(pile) - 2))  # the card just covered
        elif kind is Stopped:
            if not event.cards:
                return  # blanked: a history read after the moment (GEN-1) shows nothing new
            self.piles[event.pile] = list(event.cards)
            if self.forget:
                self.fresh.extend((event.pile, i) for i in range(len(event.cards) - 1))
        elif kind is RoundStarted:
            self.piles = [[] for _ in range(PILES)]
            self.fresh = []

    def _recall(self, view: Any, rng: random.Random) -> None:
        # Forgetting happens here because only `act` gets the RNG.
        for pile, index in self.fresh:
            if index < len(self.piles[pile]) and rng.random() < self.forget:
                self.piles[pile][index] = None
        self.fresh = []
        # A bot that joined late (or missed events) trusts the view: unknown
        # covered cards, the visible top.
        for pile, size in enumerate(view.pile_sizes):
            if len(self.piles[pile]) != size:
                self.piles[pile] = [None] * size
            if size:
                self.piles[pile][-1] = view.tops[pile]  # the top is always in sight

    def _known_matches(self, pile: int, card: int, covered_only: bool) -> tuple[int, int]:
        cards = self.piles[pile][:-1] if covered_only else self.piles[pile]
        kind = card // COPIES
        known = sum(1 for c in cards if c is not None and c // COPIES == kind)
        unknown = sum(1 for c in cards if c is None)
        return known, unknown

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if not legal:
            return None
        self._recall(view, rng)
        first = legal[0]
        if type(first) is Stop and view.latest is not None:
            latest = view.latest
            known, _ = self._known_matches(latest.pile, latest.card, covered_only=True)
            if known:
                return first
        # Only when placing is offered now (not during the stop window, KM-3).
        if view.placer != self.seat or view.revealed is None or type(legal[-1]) is not Place:
            return None
        best: list[int] = []
        best_risk = float("inf")
        for pile in range(PILES):
            known, unknown = self._known_matches(pile, view.revealed, covered_only=False)
            risk = known + UNKNOWN_RISK * unknown
            if risk < best_risk:
                best, best_risk = [pile], risk
            elif risk == best_risk:
                best.append(pile)
        return Place(rng.choice(best))


def random_bot(seat: int, options: Any) -> RandomBot:
    return RandomBot(seat)


def memory_bot(seat: int, options: Any) -> MemoryBot:
    return MemoryBot(seat, forget_probability(getattr(options, "bot_memory", "perfect")))


def perfect_memory_bot(seat: int, options: Any) -> MemoryBot:
    return MemoryBot(seat, 0.0)


BOTS: dict[str, BotFactory] = {"random": random_bot, "memory": memory_bot, "heuristic": perfect_memory_bot}
