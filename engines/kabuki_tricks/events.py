"""Events: the log a game is folded from. Tags are stable; never rename one."""

from __future__ import annotations

import msgspec

from .actions import Adjust
from .options import Options


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Started(Event, frozen=True, tag="kt.started"):
    players: int
    options: Options
    rounds: int
    first_dealer: int
    high: bool  # KT-10: round 1 starts from a random side ...
    order: tuple[str, ...]  # ... and a random actor order, strongest first
    # Private (blanked by redact until the game ends): the seed and the deck
    # order of every round, drawn up front so that folding never draws.
    seed: int | None = None
    decks: tuple[tuple[int, ...], ...] = ()
    # Provably fair deals: public from the start, `core.commitment(seed, salt)`; the
    # salt is private like the seed, and `kt.game_ended` reveals both.
    commitment: str = ""
    salt: str | None = None


class Dealt(Event, frozen=True, tag="kt.dealt"):
    """Seat s got deck[7s:7s+7] plus its Joker; with 2 players the dummy pile is
    deck[14:21] in dealt order (top first, KT-13); the rest is discarded."""

    round: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]  # a viewer's redaction keeps only its own
    dummy: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()


class Directed(Event, frozen=True, tag="kt.directed"):
    seat: int
    high: bool
    order: tuple[str, ...]


class Played(Event, frozen=True, tag="kt.played"):
    seat: int  # with 2 players seat 2 is the dummy
    card: int | None  # None only in history, once the trick is won (GEN-1)


class JokerPlayed(Event, frozen=True, tag="kt.joker_played"):
    seat: int
    actor: str | None  # None: the 5th Joker had no free actor (KT-7)
    prediction: int | None  # None in other seats' redaction (KT-11)
    adjust: Adjust | None = None


class TrickWon(Event, frozen=True, tag="kt.trick_won"):
    seat: int  # the winner (may be the dummy)
    cards: tuple[int, ...]  # () in history: a won trick's contents are hidden (KT-11, GEN-1)
    next: int  # who plays next: the leader, or with 2 players the second (KT-13)


class ScoreLine(msgspec.Struct, frozen=True, gc=False):
    """One seat's round score, by rulebook line (Phase 4, KT-8, KT-9, KT-3, KT-14)."""

    tricks: int
    prediction: int
    suit: int
    joker: int
    failed: int = 0
    toxic: int = 0
    total: int = 0


class RoundEnded(Event, frozen=True, tag="kt.round_ended"):
    """Public reveal (KT-11): Player cards, final cards, discard, won tricks."""

    round: int
    high: bool
    order: tuple[str, ...]
    finals: tuple[int, ...]  # per seat
    predictions: tuple[int | None, ...]  # per seat
    actors: tuple[str | None, ...]  # per seat: where its Player card sat
    tricks: tuple[int, ...]  # per seat, then the dummy's with 2 players
    lines: tuple[ScoreLine, ...]
    discard: tuple[int, ...]
    won: tuple[tuple[tuple[int, ...], ...], ...]  # per seat (and dummy)


class GameEnded(Event, frozen=True, tag="kt.game_ended"):
    seed: int
    scores: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]
    salt: str = ""  # with the seed, opens the start's commitment


AnyEvent = Started | Dealt | Directed | Played | JokerPlayed | TrickWon | RoundEnded | GameEnded

DEAL_TAGS = frozenset({"kt.started", "kt.dealt"})  # chance outcomes, for engines.verify
