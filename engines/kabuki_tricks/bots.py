"""House bots: `random` (uniform over legal actions) and `heuristic`."""

from __future__ import annotations

import random

from engines.core import BotFactory

from .actions import Deal, Direct, Joker, Play
from .cards import JOKER, STRENGTH, SUIT_INDEX, SUIT_OF, SUITS, deck_for


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


def prediction(tricks: int, suit_cards: list[int], win_chances) -> tuple[int, int | None]:
    """The heuristic's Joker prediction and the card it keeps to the end
    (KT-9): the tricks it has, plus the ones its other cards of the suit
    will (nearly) surely win (`win_chances()`, asked only when there are
    two or more), between 1 and 3. Shared by the engine's bot and its lean
    port (engines/kabuki_tricks/lean_bot.py)."""
    keep = suit_cards[0] if suit_cards else None
    predicted = tricks
    if len(suit_cards) >= 2:
        chances = win_chances()
        ranked = sorted(zip(chances, suit_cards, strict=True))
        if len(suit_cards) == 2:
            win_next = ranked[-1][0] > 0.5
            predicted += 1 if win_next else 0
            keep = ranked[0][1] if win_next else ranked[-1][1]
        else:
            predicted += round(sum(chances[:-1]))
            keep = ranked[0][1]
    return min(3, max(1, predicted)), keep


class HeuristicBot:
    """Plays to win, from its own view only.

    - As Director (KT-10) it picks the side and actor order under which its
      hand is expected to take the most tricks.
    - It tries to take tricks (up to 3, the largest prediction, KT-1) and keeps
      its Joker for late: played as a follower in trick 6 or 7 it predicts a
      count that is by then (nearly) certain, beside the actor of its final
      card's suit (KT-9), and swaps that actor up for the KT-8 tie-break.
    - A hand that has taken no trick by then keeps the Joker and ducks the
      rest: +5 for the Joker with 0 tricks (KT-3). A hopeless hand ducks from
      the start.
    """

    blind = False
    observes = False

    def __init__(self, seat: int, options=None) -> None:
        self.seat = seat
        self.zero_mode = False

    def observe(self, event) -> None:
        pass

    # --- estimates -------------------------------------------------------------

    @staticmethod
    def _win_chances(cards, unknown, strength, others: int) -> list[float]:
        """Rough chance that each card beats `others` random unseen cards."""
        size = len(unknown) or 1
        ranked = sorted(strength[c] for c in unknown)
        chances = []
        for c in cards:
            s = strength[c]
            weaker = sum(1 for x in ranked if x < s)
            chances.append((weaker / size) ** others)
        return chances

    def _unknown(self, view) -> list[int]:
        seen = set(view.hand)
        seen.update(card for _seat, card in view.trick)
        return [c for c in deck_for(view.players) if c not in seen]

    @staticmethod
    def _others(view) -> int:
        return 2 if view.players == 2 else view.players - 1

    # --- decisions ---------------------------------------------------------------

    def act(self, view, legal, rng: random.Random):
        first = legal[0]
        if type(first) is Deal:
            self.zero_mode = False
            return first
        if type(first) is Direct:
            return self._direct(view, legal)
        return self._play(view, legal)

    def _direct(self, view, legal):
        cards = [c for c in view.hand if c < JOKER]
        unknown = [c for c in deck_for(view.players) if c not in cards]
        others = self._others(view)
        best, best_value = legal[0], -1.0
        for action in legal:
            order = tuple(SUIT_INDEX[s] for s in action.order)
            strength = STRENGTH[action.high, order]
            value = sum(self._win_chances(cards, unknown, strength, others))
            if value > best_value:
                best, best_value = action, value
        return best

    def _play(self, view, legal):
        me = view.seats[self.seat]
        strength = STRENGTH[view.high, tuple(SUIT_INDEX[s] for s in view.order)]
        plays = [a.card for a in legal if type(a) is Play]
        jokers = [a for a in legal if type(a) is Joker]
        suit_cards = [c for c in view.hand if c < JOKER]
        unknown = self._unknown(view)
        others = self._others(view)
        has_joker = me.has_joker
        tricks = me.tricks
        trick_no = view.trick_no
        if trick_no == 1 and not view.trick or (trick_no == 1 and len(suit_cards) == 7):
            expected = sum(self._win_chances(suit_cards, unknown, strength, others))
            self.zero_mode = has_joker and expected < 0.35
        if tricks > 0:
            self.zero_mode = False
        elif has_joker and trick_no >= 6 and not jokers and not self.zero_mode:
            # leading late with no trick yet: keep the Joker for +5 (KT-3)
            self.zero_mode = True
        if jokers and not self.zero_mode:
            if tricks == 0 and trick_no >= 6:
                self.zero_mode = True  # KT-3: the Joker kept with 0 tricks scores 5
            elif (
                trick_no >= 6
                or (tricks >= 3 and all(self._beats(view, strength, c) for c in plays))
                or self._actors_running_out(view, jokers)
            ):
                return self._joker(view, jokers, strength, suit_cards, unknown, others, tricks)
        if me.prediction:
            want_win = tricks < me.prediction
        elif self.zero_mode:
            want_win = False
        else:
            want_win = tricks < 3
        return Play(card=self._choose_card(view, plays, strength, want_win))

    def _actors_running_out(self, view, jokers) -> bool:
        """Too few free actors for the Jokers still out (5 players, KT-7): place now."""
        free = {a.actor for a in jokers} - {None}
        rivals = sum(1 for sv in view.seats if sv.seat != self.seat and sv.has_joker)
        return 0 < len(free) <= rivals

    @staticmethod
    def _beats(view, strength, card) -> bool:
        return bool(view.trick) and strength[card] > max(strength[c] for _s, c in view.trick)

    def _choose_card(self, view, plays, strength, want_win: bool) -> int:
        trick = view.trick
        by_strength = sorted(plays, key=lambda c: strength[c])
        if not trick:
            return by_strength[-1] if want_win else by_strength[0]
        best = max(strength[c] for _s, c in trick)
        size = 3 if view.players == 2 else view.players
        last = len(trick) + 1 == size
        winners = [c for c in by_strength if strength[c] > best]
        losers = [c for c in by_strength if strength[c] < best]
        if want_win:
            if winners:
                return winners[0] if last else winners[-1]
            return by_strength[0]
        if losers:
            return losers[-1]
        return by_strength[0]

    def _joker(self, view, jokers, strength, suit_cards, unknown, others, tricks):
        predicted, keep = prediction(
            tricks, suit_cards, lambda: self._win_chances(suit_cards, unknown, strength, others)
        )
        free = {a.actor for a in jokers}
        if None in free:  # KT-7: nothing to place
            return jokers[0]
        order = list(view.order)
        keep_suit = SUITS[SUIT_OF[keep]] if keep is not None else None
        actor = keep_suit if keep_suit in free else min(free, key=order.index)
        position = order.index(actor)
        adjust_swap = position - 1 if position > 0 else None
        for action in jokers:
            if action.actor != actor or action.prediction != predicted:
                continue
            adjust = action.adjust
            if adjust_swap is None and adjust is None:
                return action
            if adjust_swap is not None and adjust is not None and adjust.swap == adjust_swap:
                return action
        return jokers[0]


BOTS: dict[str, BotFactory] = {"random": RandomBot, "heuristic": HeuristicBot}
