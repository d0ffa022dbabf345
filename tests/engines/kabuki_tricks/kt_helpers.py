"""Builders for Kabuki Tricks tests: fixed deals and a tiny table driver."""

from __future__ import annotations

from msgspec.structs import replace

from engines.core import Chance, Ctx
from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.actions import Adjust, Deal, Direct, Joker, Play
from engines.kabuki_tricks.cards import SUITS, card_id, deck_for
from engines.kabuki_tricks.state import State

# Suit names by initial; orange is spelt out (a lone O reads as a zero).
G, P, ORANGE, B = "green", "purple", "orange", "blue"


def c(text: str) -> int:
    """'7P' / '10G' / '1B' / '8O' -> card id."""
    suit = {"G": G, "P": P, "O": ORANGE, "B": B}[text[-1]]
    return card_id(suit, int(text[:-1]))


def deck_with(players: int, hands: dict[int, list[int]], dummy: list[int] | None = None) -> list[int]:
    """A round's deck order giving each seat the listed cards (filled up to 7):
    seat s gets deck[7s:7s+7], the 2-player dummy pile deck[14:21] top first."""
    wanted = [x for h in hands.values() for x in h] + list(dummy or [])
    pool = [x for x in deck_for(players) if x not in wanted]
    order: list[int] = []
    seats: list[int | str] = list(range(players)) + (["dummy"] if players == 2 else [])
    for seat in seats:
        hand = list(hands.get(seat, [])) if isinstance(seat, int) else list(dummy or [])
        while len(hand) < 7:
            hand.append(pool.pop(0))
        order.extend(hand)
    return order + pool


class Table:
    """A game driven by explicit actions; `state` is always fold(log)."""

    def __init__(
        self, players: int, *, hands=None, dummy=None, dealer=0, high=True, order=SUITS, options=None, rounds=None
    ):
        fixed = {"first-dealer": [dealer], "high-low": [high], "actors": list(order)}
        fixed["round-1"] = deck_with(players, hands or {}, dummy)
        for r, deck in (rounds or {}).items():
            fixed[f"round-{r}"] = deck
        self.options = GAME.make_options(options or {})
        self.log = GAME.new_game(players, self.options, Chance(seed=99, fixed=fixed))
        self.state: State = GAME.fold(self.log)

    def act(self, seat: int, action) -> list:
        events = GAME.decide(self.state, seat, action, Ctx(0))
        self.log.extend(events)
        self.state = GAME.fold(events, self.state)
        return events

    def deal(self):
        return self.act(self.state.dealer, Deal())

    def direct(self, high=True, order=SUITS):
        return self.act(self.state.dealer, Direct(high=high, order=tuple(order)))

    def play(self, seat: int, card: str | int):
        return self.act(seat, Play(card=c(card) if isinstance(card, str) else card))

    def joker(self, seat: int, actor=None, prediction=None, flip=False, swap=None):
        adjust = Adjust(flip=True) if flip else Adjust(swap=swap) if swap is not None else None
        return self.act(seat, Joker(actor=actor, prediction=prediction, adjust=adjust))


def end_state(players: int, *, finals, tricks, predictions, placed, high=True, order=SUITS, options=None) -> State:
    """The state right after trick 7, for scoring: final cards, trick counts,
    placed Player cards (suit name -> seat) and predictions per seat."""
    table = Table(players, options=options)
    table.deal()
    s = table.state
    count = players + (1 if players == 2 else 0)
    suit_seat = [-1] * 4
    for suit, seat in placed.items():
        suit_seat[SUITS.index(suit)] = seat
    return replace(
        s,
        high=high,
        order=tuple(SUITS.index(x) for x in order),
        hands=tuple((f,) for f in finals) + (((),) if players == 2 else ()),
        tricks_won=tuple(tricks) + ((0,) if len(tricks) < count else ()),
        placed=tuple(suit_seat),
        predictions=tuple(p or 0 for p in predictions),
        trick_no=8,
    )
