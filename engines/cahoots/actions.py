"""Cahoots actions. Actions are immutable, so one instance per card is
prebuilt and shared (legal_actions is on the simulator's hot path)."""

from __future__ import annotations

import msgspec


class Action(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Play(Action, frozen=True, tag="play"):
    card: int


class Keep(Action, frozen=True, tag="keep"):
    card: int


class Kill(Action, frozen=True, tag="kill"):
    card: int


class Pick(Action, frozen=True, tag="pick"):
    card: int


AnyAction = Play | Keep | Kill | Pick

PLAY = tuple(Play(card) for card in range(48))
KEEP = tuple(Keep(card) for card in range(48))
KILL = tuple(Kill(card) for card in range(48))
PICK = tuple(Pick(card) for card in range(48))
