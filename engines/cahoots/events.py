"""Cahoots events: a tagged union with stable tags ("ch.*")."""

from __future__ import annotations

import msgspec

from engines.cahoots.options import Options


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Started(Event, frozen=True, tag="ch.started"):
    """The table as set up. `seed`, `deck` (the deal's card order, drawn as
    "round-1") and `reserve` (the 3-player reserve's order, CH-6) are private:
    `redact` blanks them for every viewer; the game's end reveals the seed."""

    players: int
    options: Options
    identities: tuple[int, ...]  # identity card (0..3 = I1..I4) per seat, CH-1
    dealer: int  # CH-2: also the first start player
    seed: int | None = None
    deck: tuple[int, ...] = ()
    reserve: tuple[int, ...] = ()
    # Provably fair deals: public from the start, `core.commitment(seed, salt)`; the
    # salt is private like the seed, and `ch.game_ended` reveals both.
    commitment: str = ""
    salt: str | None = None


class Dealt(Event, frozen=True, tag="ch.dealt"):
    """Twelve cards per seat; a viewer sees only its own hand (others: ())."""

    hands: tuple[tuple[int, ...], ...]


class Played(Event, frozen=True, tag="ch.played"):
    seat: int
    card: int


class Chose(Event, frozen=True, tag="ch.chose"):
    """A keep (keep=True) or kill choice of CH-4; public (CH-9)."""

    seat: int
    card: int
    keep: bool


class TrickScored(Event, frozen=True, tag="ch.trick_scored"):
    """CH-5 applied to the trick. `points` per seat: points scored, or with
    face_value_scoring (CH-8) the number of killed cards the seat takes, in
    `pick_order`. `reserve_card` is the reserve card that joins the killed
    cards with 3 players (CH-6), -1 with 4."""

    trick: int
    winning_suits: tuple[int, ...]
    points: tuple[int, ...]
    reserve_card: int = -1
    pick_order: tuple[int, ...] = ()


class Picked(Event, frozen=True, tag="ch.picked"):
    """CH-8: a scorer takes one of the killed cards (face value = points)."""

    seat: int
    card: int


class GameEnded(Event, frozen=True, tag="ch.game_ended"):
    seed: int
    scores: tuple[float, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]
    salt: str = ""  # with the seed, opens the start's commitment


AnyEvent = Started | Dealt | Played | Chose | TrickScored | Picked | GameEnded

DEAL_TAGS = frozenset({"ch.started", "ch.dealt"})  # chance outcomes, for engines.verify
