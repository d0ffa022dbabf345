"""Kabuki (the mask memory game) events: the log is the game.

Every card is an int id 0..49; its mask kind is `id // 5` (10 kinds, 5 copies
each; only identical masks match). Time is data (KM-3): events that happen at a
moment carry the service's receive time of the command (or timer) causing them.
"""

from __future__ import annotations

import msgspec

from engines.kabuki_masks.options import Options


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    pass


class Started(Event, frozen=True, tag="km.started"):
    """The whole game's chance, drawn up front: the deck order of every round
    and the first player. `seed` and `decks` are private (redacted to None and
    () for every viewer); `km.game_ended` publishes the seed."""

    players: int
    stop_window_ms: int
    first_seat: int
    seed: int | None
    decks: tuple[tuple[int, ...], ...]
    # Provably fair deals: public from the start, `core.commitment(seed, salt)`; the
    # salt is private like the seed, and `km.game_ended` reveals both.
    commitment: str = ""
    salt: str | None = None


class RoundStarted(Event, frozen=True, tag="km.round_started"):
    """A new round: everyone holds `tokens`, the piles are bare actor cards,
    `first_seat` places first (KM-5: the seat that ended the last round)."""

    round: int
    first_seat: int
    tokens: int


class Revealed(Event, frozen=True, tag="km.revealed"):
    """KM-1: the top card of the deck, shown to everyone; `seat` must place it."""

    seat: int
    card: int | None  # None in history once the card is covered (KM-7, GEN-1)


class Placed(Event, frozen=True, tag="km.placed"):
    """KM-1: `seat` put the revealed `card` on `pile`. `placement` numbers the
    game's placements (what a Stop names); `placed_at_ms` starts the stop window."""

    seat: int
    pile: int
    card: int | None  # None in history once the card is covered (KM-7, GEN-1)
    placement: int
    placed_at_ms: int


class Stopped(Event, frozen=True, tag="km.stopped"):
    """KM-2/KM-4: `caller` said Stop on `placement`; the whole pile (`cards`,
    bottom to top) is shown to everyone in this event only. `moved` tokens went
    from `placer` to `caller` for `matches` covered cards like the top;
    `returned` (0 or 1) tokens went from the caller back to the box."""

    caller: int
    placement: int
    placer: int
    pile: int
    cards: tuple[int, ...]  # () in history once the next card is placed (GEN-1)
    matches: int
    moved: int
    returned: int
    at_ms: int


class RoundEnded(Event, frozen=True, tag="km.round_ended"):
    """KM-5: `reason` is "last_token" (`ended_by` lost their last token) or
    "deck_empty" (`ended_by` placed the last card). `tokens` as held now: each
    seat banks them (KM-6). Carries no card: the ids come back next round."""

    round: int
    ended_by: int
    reason: str
    tokens: tuple[int, ...]
    at_ms: int


class GameEnded(Event, frozen=True, tag="km.game_ended"):
    """The end after round 3, with the seed that made every deck, public."""

    seed: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    salt: str = ""  # with the seed, opens the start's commitment


AnyEvent = Started | RoundStarted | Revealed | Placed | Stopped | RoundEnded | GameEnded


DEAL_TAGS = frozenset({"km.started", "km.round_started", "km.revealed"})  # chance outcomes, for engines.verify


def setup(event: Started) -> tuple[int, Options]:
    """The start's inputs, for re-running it (engines.verify): only
    `stop_window_ms` reaches the start event, and only it shapes it."""
    return event.players, Options(stop_window_ms=event.stop_window_ms)


def event_time(event) -> int | None:
    """The receive time an event records (KM-3): the `now_ms` its command or
    timer had, which a re-play must hand to decide again."""
    kind = type(event)
    if kind is Placed:
        return event.placed_at_ms
    if kind is Stopped or kind is RoundEnded:
        return event.at_ms
    return None
