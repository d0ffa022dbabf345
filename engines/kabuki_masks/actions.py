"""Kabuki actions: {"type": "place", "pile": 2} and {"type": "stop", "placement": 17}."""

from __future__ import annotations

import msgspec


class Action(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Place(Action, frozen=True, tag="place"):
    """KM-1: put the revealed card on actor pile 0..3."""

    pile: int


class Stop(Action, frozen=True, tag="stop"):
    """KM-2: call "Stop!" on a placement. `placement` is the number the caller
    means (None = the latest), so a call that arrives after the next card was
    placed is refused instead of landing on the wrong card."""

    placement: int | None = None


AnyAction = Place | Stop
