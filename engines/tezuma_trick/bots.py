"""House bots for Tezuma Trick.

`random`: any legal action, uniformly (abilities included).
`heuristic`: drafts a Bid card its hand can reach, a Pain Suit it is unlikely
to collect and a steering ability; then each trick it decides whether it
wants to win (trick count below its bid), to lose (at the top of its bid) or
does not mind (in range: then it avoids pain), and picks the action with the
best estimate, using an ability only when that beats every plain play. It
remembers the cards played this hand (from its own redacted events).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engines.core import BotFactory
from engines.tezuma_trick.actions import Egg, PickAbility, PickBid, PickPain, Sand
from engines.tezuma_trick.cards import (
    ABILITY_IDS,
    IS_TRUMP,
    NUMBER_OF,
    SUIT_OF,
    TRICKS_PER_HAND,
    deck_for,
)
from engines.tezuma_trick.events import HandDealt, Played, TrickWon
from engines.tezuma_trick.tricks import trick_winner


class RandomBot:
    """Any legal action, uniformly: picks, plays and ability uses alike."""

    blind = True  # ignores the view: the simulator skips building it
    observes = False

    def __init__(self, seat: int, options: Any) -> None:
        self.seat = seat

    def observe(self, event: Any) -> None:
        return None

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        # random() * len is the cheapest uniform pick (randrange costs 3x).
        return legal[int(rng.random() * len(legal))] if legal else None


# Abilities in the order the heuristic drafts them: the ones that let it
# choose to win or to lose a trick first.
ABILITY_PREFERENCE = (
    "paper_egg",
    "cup_and_ball",
    "linking_ring",
    "five_color_sand",
    "sword_walking",
    "water_trick",
    "fire_breathing",
    "butterfly_dance",
    "horse_swallowing",
    "many_umbrellas",
    "chicks",
    "pail_dance",
)
WIN, LOSE, EASY = 1.0, -1.0, -0.3
PAIN_PER_TRICK = 1.0
_ABILITY_COST = {"paper_egg": 0.06, "sword_walking": 0.06, "five_color_sand": 0.35}


def expected_tricks(hand: Sequence[int], players: int) -> float:
    """A rough count of the tricks a hand takes by itself: high numbers that
    few unseen cards beat, and Trumps (effective once the hand is void)."""
    total = 0.0
    for suit in range(4):
        mine = sorted((NUMBER_OF[c] for c in hand if SUIT_OF[c] == suit and not IS_TRUMP[c]), reverse=True)
        top = 9 if players == 4 else 8
        for depth, number in enumerate(mine):
            above = sum(1 for n in range(number + 1, top + 1) if n not in mine)
            total += 0.85 * (0.5**above) * (0.8**depth)
    trumps = sum(1 for c in hand if IS_TRUMP[c])
    short = sum(1 for suit in range(4) if sum(1 for c in hand if SUIT_OF[c] == suit and not IS_TRUMP[c]) <= 1)
    total += trumps * (0.35 + 0.08 * short)
    return total


class HeuristicBot:
    blind = False
    observes = True

    def __init__(self, seat: int, options: Any) -> None:
        self.seat = seat
        self.options = options
        self.seen: set[int] = set()  # cards played this hand and not back in a hand

    def observe(self, event: Any) -> None:
        kind = type(event)
        if kind is Played:
            self.seen.update(event.cards)
        elif kind is TrickWon:
            if event.returned >= 0:
                self.seen.discard(event.returned)
        elif kind is HandDealt:
            self.seen = set()

    # --- the draft -----------------------------------------------------------

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if not legal:
            return None
        if view.phase == "draft":
            return self._pick(view, legal)
        return self._play(view, legal)

    def _pick(self, view, legal):
        me = view.seats[self.seat]
        hand = me.hand or ()
        bids = [a for a in legal if type(a) is PickBid]
        if bids:
            return max(bids, key=lambda a: self._bid_value(view, hand, a.bid))
        abilities = [a for a in legal if type(a) is PickAbility]
        if abilities:
            return min(abilities, key=lambda a: ABILITY_PREFERENCE.index(a.ability))
        pains = [a for a in legal if type(a) is PickPain]
        return min(pains, key=lambda a: self._pain_risk(hand, a.suit))

    @staticmethod
    def _bid_value(view, hand, bid: int) -> float:
        card = view.bid_cards[bid]
        estimate = expected_tricks(hand, view.players)
        lo, hi = min(card.tricks), max(card.tricks)
        # Steering widens what the hand can reach, losing more easily than winning.
        gap = lo - estimate - 0.8 if estimate < lo else estimate - hi - 1.6 if estimate > hi else 0.0
        chance = 1.0 / (1.0 + max(gap, 0.0) ** 2)
        # Every trick taken brings pain-suit cards along (TT-2): about PAIN_PER_TRICK.
        target = min(max(estimate - 0.8, lo), hi)
        return chance * max(0.1, card.points - PAIN_PER_TRICK * target) * (0.85 + 0.05 * min(len(card.tricks), 3))

    @staticmethod
    def _pain_risk(hand, suit: int) -> float:
        # Tricks won in a suit bring its cards: risky where the hand is high.
        return sum(max(0, NUMBER_OF[c] - 5) for c in hand if SUIT_OF[c] == suit) - 0.2 * sum(
            1 for c in hand if SUIT_OF[c] == suit
        )

    # --- card play -------------------------------------------------------------

    def _goal(self, view, me) -> float:
        card = view.bid_cards[me.bid]
        lo, hi = min(card.tricks), max(card.tricks)
        won, left = me.tricks, TRICKS_PER_HAND - view.trick_no + 1
        if won >= hi or won + left < lo:
            return LOSE  # at the top, or out of reach: avoid tricks (and pain)
        if won < lo:
            return WIN
        return EASY

    def _play(self, view, legal):
        me = view.seats[self.seat]
        goal = self._goal(view, me)
        plays = tuple((p.seat, p.cards, ABILITY_IDS.get(p.ability, -1) if p.ability else -1) for p in view.trick)
        after_me = view.players - len(plays) - 1
        unseen = self._unseen(view, me)
        best, best_score, egg = None, float("-inf"), None
        for action in legal:
            if type(action) is Egg:
                egg = action
                continue
            score = self._score(view, me, goal, plays, after_me, unseen, action)
            if score > best_score:
                best, best_score = action, score
        if egg is not None and after_me > 0:
            # Playing last means knowing every card: it usually closes most of
            # the gap between the best plain play and the ideal outcome.
            ideal = 1.0 if goal == WIN else 0.0
            if best is None or 0.6 * (ideal - best_score) > _ABILITY_COST["paper_egg"] + 0.05:
                return egg
        return best

    def _unseen(self, view, me) -> list[int]:
        hand = set(me.hand or ())
        shown = {c for seat in view.seats for c in seat.shown}
        return [c for c in deck_for(view.players) if c not in hand and c not in self.seen and c not in shown]

    def _score(self, view, me, goal, plays, after_me, unseen, action) -> float:
        kind = type(action)
        if kind is Sand:
            return goal * 1.0 - _ABILITY_COST["five_color_sand"] - 0.3 * (goal < WIN)
        ability = ABILITY_IDS[action.ability] if action.ability else -1
        cards = (action.card,) if action.second is None else (action.card, action.second)
        mine = (self.seat, cards, ability)
        trick = plays + (mine,)
        led = view.led_suit if view.led_suit >= 0 else SUIT_OF[cards[0]]
        winner, reason = trick_winner(trick, led)
        p_win = 0.0
        if winner == self.seat:
            p_win = 1.0 if after_me == 0 else self._hold_chance(view, trick, led, reason, after_me, unseen, mine)
        pain = sum(1 for _, cs, _ in trick for c in cs if SUIT_OF[c] == me.pain)
        if led == me.pain:
            pain += 0.6 * after_me
        score = goal * p_win - 0.5 * pain * p_win
        strength = sum(NUMBER_OF[c] + (4 if IS_TRUMP[c] else 0) for c in cards)
        # Keep strength for later when winning anyway; shed it when losing.
        score += (0.015 if goal < 0 else -0.015) * strength
        if SUIT_OF[cards[0]] == me.pain:
            score += 0.04 * (1.0 - p_win)  # pain cards are best given away
        if action.ability:
            score -= _ABILITY_COST.get(action.ability, 0.12)
        return score

    def _hold_chance(self, view, trick, led, reason, after_me, unseen, mine) -> float:
        if reason in ("trump", "sword_walking", "five_color_sand"):
            return 0.9
        value = max(NUMBER_OF[c] for c in mine[1]) if len(mine[1]) == 1 else sum(NUMBER_OF[c] for c in mine[1])
        higher = sum(1 for c in unseen if SUIT_OF[c] == led and NUMBER_OF[c] > value)
        trumps = sum(1 for c in unseen if IS_TRUMP[c] and SUIT_OF[c] != led)
        led_left = sum(1 for c in unseen if SUIT_OF[c] == led)
        share = 1.0 / max(1, view.players - 1)
        beat = 1.0 - (1.0 - share) ** higher
        void = 0.5 ** max(0, led_left - 1) if trumps else 0.0
        per_player = min(0.95, 0.7 * beat + 0.5 * void)
        return (1.0 - per_player) ** (after_me * (view.players - 1) / max(1, view.players - 1) * 0.9)


BOTS: dict[str, BotFactory] = {"random": RandomBot, "heuristic": HeuristicBot}
