"""Tezuma Trick events: a tagged union with stable tags ("tt.*").

Cards are ints (see cards.py); abilities are named by their snake_case names
(`cards.ABILITY_NAMES`) so that a log reads without a table.
"""

from __future__ import annotations

import msgspec

from engines.tezuma_trick.options import Options


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Started(Event, frozen=True, tag="tt.started"):
    """The table. Private (blanked by `redact` for every viewer while the
    game runs; the final event reveals the seed): `seed`, `decks` (the deck
    order of every hand, drawn as "round-1".."round-n") and the face-up Bid
    and Ability cards of every hand (TT-3), which each `HandDealt` shows
    when its hand begins."""

    players: int
    options: Options
    first_dealer: int
    seed: int | None = None
    decks: tuple[tuple[int, ...], ...] = ()
    bid_rows: tuple[tuple[int, ...], ...] = ()
    ability_rows: tuple[tuple[int, ...], ...] = ()
    # Provably fair deals: public from the start, `core.commitment(seed, salt)`; the
    # salt is private like the seed, and `tt.game_ended` reveals both.
    commitment: str = ""
    salt: str | None = None


class HandDealt(Event, frozen=True, tag="tt.hand_dealt"):
    """A hand begins: the face-up Bid cards (indexes into options.bid_cards)
    and Ability cards (names), and 12 cards per seat; a viewer sees only its
    own hand (other seats: ())."""

    hand: int
    dealer: int
    bids: tuple[int, ...]
    abilities: tuple[str, ...]
    hands: tuple[tuple[int, ...], ...]


class PickedPain(Event, frozen=True, tag="tt.picked_pain"):
    seat: int
    suit: int


class PickedBid(Event, frozen=True, tag="tt.picked_bid"):
    seat: int
    bid: int


class PickedAbility(Event, frozen=True, tag="tt.picked_ability"):
    seat: int
    ability: str


class EggDeclared(Event, frozen=True, tag="tt.egg_declared"):
    """Paper Egg (TT-7): the seat will play after every other player."""

    seat: int


class Played(Event, frozen=True, tag="tt.played"):
    """A seat's play: one card, two with Fire Breathing (TT-9), none with
    Five-Color Sand (TT-10); `ability` is the ability declared with it."""

    seat: int
    cards: tuple[int, ...]  # () in history once the trick is won (TT-14, GEN-1)
    ability: str | None = None


class TrickWon(Event, frozen=True, tag="tt.trick_won"):
    """`reason` says which rule decided (trump, high, sword_walking,
    five_color_sand); `next_leader` differs from `winner` after Chicks or
    Pail Dance (TT-13); `returned` is the Fire Breathing card that goes back
    to `returned_to`'s hand, publicly (TT-9), -1 if none."""

    trick: int
    winner: int
    next_leader: int
    reason: str
    returned: int = -1
    returned_to: int = -1


class HandScored(Event, frozen=True, tag="tt.hand_scored"):
    """End of a hand: trick counts, pain counts (revealed now, TT-14), the
    hand's points (TT-2: bid points minus pain, never below 0) and totals."""

    hand: int
    tricks: tuple[int, ...]
    pain: tuple[int, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]


class GameEnded(Event, frozen=True, tag="tt.game_ended"):
    seed: int
    scores: tuple[float, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]
    salt: str = ""  # with the seed, opens the start's commitment


AnyEvent = (
    Started
    | HandDealt
    | PickedPain
    | PickedBid
    | PickedAbility
    | EggDeclared
    | Played
    | TrickWon
    | HandScored
    | GameEnded
)

DEAL_TAGS = frozenset({"tt.started", "tt.hand_dealt"})  # chance outcomes, for engines.verify
