"""Commands a seat sends. Tags are stable; suits are names, cards are ints (cards.py).

{"type": "deal"}                                            the dealer deals the round
{"type": "direct", "high": true, "order": ["green", "purple", "orange", "blue"]}   KT-10
{"type": "play", "card": 16}                                a suit card (purple 7)
{"type": "joker", "actor": "blue", "prediction": 2, "adjust": {"swap": 1}}
      adjust: null | {"flip": true} | {"swap": i} (swap the actors at positions i, i+1,
      0 = strongest, KT-6); actor and prediction are null only for the 5th Joker (KT-7).
"""

from __future__ import annotations

from typing import Literal

import msgspec

Suit = Literal["green", "purple", "orange", "blue"]


class Adjust(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, gc=False):
    """The Joker's optional action (KT-6): exactly one of flip or swap."""

    flip: bool = False
    swap: int | None = None


class Action(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Deal(Action, frozen=True, tag="deal"):
    pass


class Direct(Action, frozen=True, tag="direct"):
    high: bool
    order: tuple[Suit, ...]


class Play(Action, frozen=True, tag="play"):
    card: int


class Joker(Action, frozen=True, tag="joker"):
    actor: Suit | None = None
    prediction: int | None = None
    adjust: Adjust | None = None


AnyAction = Deal | Direct | Play | Joker

FLIP = Adjust(flip=True)
SWAPS = (Adjust(swap=0), Adjust(swap=1), Adjust(swap=2))
ADJUSTS = (None, FLIP, *SWAPS)
