"""Tezuma Trick actions (stable tags).

{"type": "pick_pain", "suit": 2}
{"type": "pick_bid", "bid": 5}                  index into options.bid_cards
{"type": "pick_ability", "ability": "chicks"}
{"type": "play", "card": 17}
{"type": "play", "card": 17, "ability": "horse_swallowing"}
{"type": "play", "card": 14, "second": 17, "ability": "fire_breathing"}  card < second
{"type": "egg"}                                 Paper Egg, before playing
{"type": "sand"}                                Five-Color Sand: win without a card
"""

from __future__ import annotations

import msgspec


class Action(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class PickPain(Action, frozen=True, tag="pick_pain"):
    suit: int


class PickBid(Action, frozen=True, tag="pick_bid"):
    bid: int


class PickAbility(Action, frozen=True, tag="pick_ability"):
    ability: str


class Play(Action, frozen=True, tag="play"):
    card: int
    ability: str | None = None
    second: int | None = None  # Fire Breathing's second card (TT-9)


class Egg(Action, frozen=True, tag="egg"):
    pass


class Sand(Action, frozen=True, tag="sand"):
    pass


AnyAction = PickPain | PickBid | PickAbility | Play | Egg | Sand
