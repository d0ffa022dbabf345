"""House bots: `random` (any legal action, ignores the view) and
`heuristic` (plays for the suits on its identity card)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engines.cahoots.actions import Keep, Pick, Play
from engines.cahoots.cards import IDENTITIES, VALUE_OF
from engines.cahoots.options import Options
from engines.cahoots.rules import best_suits, trick_points
from engines.core import BotFactory


class RandomBot:
    blind = True
    observes = False

    def __init__(self, seat: int, options: Options) -> None:
        self.seat = seat

    def observe(self, event) -> None:
        pass

    def act(self, view, legal: Sequence, rng: random.Random):
        return legal[rng.randrange(len(legal))] if legal else None


def _points(totals: list[int], identities: tuple[int, ...]) -> tuple[int, ...]:
    """CH-5 points per seat if the trick ended with these suit totals."""
    return trick_points(best_suits(totals), identities)


class HeuristicBot:
    """Greedy for the current trick, frugal with its own suits.

    Play: the card that gives it the most points if the trick ended now,
    net of what the others get; ties go to dumping a card of a suit it does
    not hold (the highest first) rather than spending one of its own.
    Keep/kill: keep the best card of its own suits, kill the best card of
    suits it does not hold (that would help the others later)."""

    blind = False
    observes = False

    def __init__(self, seat: int, options: Options) -> None:
        self.seat = seat
        self.options = options

    def observe(self, event) -> None:
        pass

    def act(self, view, legal: Sequence, rng: random.Random):
        if not legal:
            return None
        mine = set(IDENTITIES[view.identities[self.seat]])
        kind = type(legal[0])
        if kind is Play:
            return self._play(view, legal, mine)
        if kind is Pick:
            return max(legal, key=lambda action: VALUE_OF[action.card])
        return self._choose(view, legal, mine)

    def _play(self, view, legal, mine):
        totals = [0] * 6
        for _, card in view.table:
            totals[card >> 3] += VALUE_OF[card]
        seat, n = self.seat, view.players
        best, best_key = None, None
        for action in legal:
            card = action.card
            suit, value = card >> 3, VALUE_OF[card]
            totals[suit] += value
            points = _points(totals, view.identities)
            mine_total = max(totals[s] for s in mine)
            other_total = max(totals[s] for s in range(6) if s not in mine)
            totals[suit] -= value
            gain = points[seat] - (sum(points) - points[seat]) / (n - 1)
            # Later players can still answer: a wider lead of my suits is safer.
            margin = max(-10, min(10, mine_total - other_total))
            keep_value = value if suit in mine else -value
            key = (gain, margin * 0.1 - keep_value * 0.05)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def _choose(self, view, legal, mine):
        last = view.trick == 11
        scoring_now = self._scoring_now(view)
        best, best_key = None, None
        for action in legal:
            card = action.card
            suit, value = card >> 3, VALUE_OF[card]
            if type(action) is Keep:
                key = 0.0 if last else (value if suit in mine else -value * 0.5)
            else:  # Kill: deny the others a card that helps them
                key = 0.0 if last else (-value if suit in mine else value * 0.8)
                if self.options.face_value_scoring and scoring_now:
                    key += value  # killed cards are my points
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def _scoring_now(self, view) -> bool:
        totals = [0] * 6
        for _, card in view.table:
            totals[card >> 3] += VALUE_OF[card]
        return _points(totals, view.identities)[self.seat] > 0


BOTS: dict[str, BotFactory] = {"random": RandomBot, "heuristic": HeuristicBot}
