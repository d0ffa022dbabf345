"""What each viewer sees (KM-7) and how events are redacted.

Public: the deck count, each pile's top card, the revealed card, every card at
the moment it is placed or a Stop reveals its pile, tokens. Covered cards are in
no view (seat or spectator) until the game ends: remembering them is the game.
Nobody knows the deck order before it is drawn.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from engines.kabuki_masks.cards import ROUNDS
from engines.kabuki_masks.events import Placed, Revealed, Started, Stopped
from engines.kabuki_masks.rules import may_place_at_ms, to_act
from engines.kabuki_masks.state import State


class LatestPlacement(msgspec.Struct, frozen=True, gc=False):
    placement: int
    seat: int
    pile: int
    card: int | None  # None in a replay once the card is covered (GEN-1)
    placed_at_ms: int
    called: bool  # KM-2: a Stop was called on it (no more calls)


class View(msgspec.Struct, frozen=True, gc=False):
    viewer: int | None
    players: int
    round: int
    rounds: int
    stop_window_ms: int
    deck_count: int  # face-down cards left in the deck
    revealed: int | None  # KM-1: the card `placer` shows everyone and must place
    placer: int | None
    may_place_at_ms: int | None  # KM-3: placing earlier is refused (None: any time)
    # Each actor pile's top card (None: the bare actor; in a replay, None on a
    # pile of size > 0 is a card covered since, GEN-1).
    tops: tuple[int | None, ...]
    pile_sizes: tuple[int, ...]
    tokens: tuple[int, ...]
    banked: tuple[int, ...]  # KM-6: tokens banked at the end of finished rounds
    latest: LatestPlacement | None
    can_stop: int | None  # the placement number this viewer may call Stop on
    to_act: tuple[int, ...]
    over: bool
    piles: tuple[tuple[int, ...], ...] | None = None  # only once the game is over
    deck: tuple[int, ...] | None = None  # cards never placed, top first, only once the game is over


def view(s: State, seat: int | None) -> View:
    acting = to_act(s)
    latest = None
    if s.last_seat is not None:
        latest = LatestPlacement(
            s.placements, s.last_seat, s.last_pile, s.piles[s.last_pile][-1], s.last_at_ms, s.called
        )
    can_stop = None
    if latest is not None and not s.called and seat is not None and seat != s.last_seat:
        can_stop = s.placements
    playing = s.placer is not None
    return View(
        viewer=seat,
        players=s.players,
        round=s.round,
        rounds=ROUNDS,
        stop_window_ms=s.stop_window_ms,
        deck_count=len(s.deck) - s.drawn,
        revealed=s.revealed if playing else None,
        placer=s.placer,
        may_place_at_ms=may_place_at_ms(s),
        tops=tuple(pile[-1] if pile else None for pile in s.piles),
        pile_sizes=tuple(map(len, s.piles)),
        tokens=s.tokens,
        banked=s.banked,
        latest=latest,
        can_stop=can_stop,
        to_act=tuple(sorted(acting)),
        over=s.over,
        piles=s.piles if s.over else None,
        deck=_unplaced(s) if s.over else None,
    )


def _unplaced(s: State) -> tuple[int, ...]:
    # a card revealed but not placed when the last round ended goes first
    undrawn = s.deck[s.drawn :]
    return undrawn if s.revealed is None else (s.revealed, *undrawn)


def redact(event, viewer: int | None):
    # Everything but the start's chance is public: placed and revealed cards
    # (KM-1), the pile a Stop shows (KM-4), tokens. The seed is published by
    # km.game_ended.
    if type(event) is Started:
        return replace(event, seed=None, decks=(), salt=None)  # the commitment stays public
    return event


# --- GEN-1: a card is public while it is in sight (KM-1, KM-7) ------------------
# A revealed or placed card is in sight while it is the card to place or a
# pile's top; a Stop's pile (KM-4) until the next card is placed (or the next
# round clears the piles). Card ids are unique within a round's deck.


def moment(s: State | None, event):
    kind = type(event)
    if s is None:  # before the first event, `Started`, which has no moment
        return None
    if kind is Revealed or kind is Placed:
        return ("card", s.round, event.card)
    if kind is Stopped:
        if len(event.cards) == 1:  # nothing covered: only the top, in sight while it is the top
            return ("card", s.round, event.cards[0])
        return ("stop", event.placement)
    return None


def moments(s: State) -> frozenset:
    lasting: set[tuple[str | int, ...]] = {("card", s.round, pile[-1]) for pile in s.piles if pile}
    if s.revealed is not None and s.placer is not None:
        lasting.add(("card", s.round, s.revealed))
    if s.called:
        lasting.add(("stop", s.placements))
    return frozenset(lasting)


def blank(event):
    kind = type(event)
    if kind is Revealed or kind is Placed:
        return replace(event, card=None)
    if kind is Stopped:
        return replace(event, cards=())  # who called, the matches and the tokens stay public
    return event


def blank_view(v: View, s: State, lasting: frozenset) -> View:
    def sight(card):
        return card if card is None or ("card", s.round, card) in lasting else None

    latest = v.latest
    if latest is not None and sight(latest.card) is None:
        latest = replace(latest, card=None)
    return replace(v, revealed=sight(v.revealed), tops=tuple(map(sight, v.tops)), latest=latest)


def past_cards(s: State) -> frozenset:
    """Covered cards of this round, but those of a pile a Stop shows now."""
    if s.over:
        return frozenset()
    shown = s.last_pile if s.called else -1
    return frozenset(card for i, pile in enumerate(s.piles) if i != shown for card in pile[:-1])


def all_cards(s: State) -> list[int]:
    """Every card of the round in play: piles, the revealed card, the deck."""
    cards = [card for pile in s.piles for card in pile]
    if s.revealed is not None:
        cards.append(s.revealed)
    cards.extend(s.deck[s.drawn :])
    return cards


def hidden_cards(s: State, viewer: int | None) -> frozenset:
    """What no viewer may know: the undrawn part of the deck. Covered cards
    were all shown when placed (KM-1); that views do not show them again
    (KM-7) is checked by the package's own tests."""
    if s.over:
        return frozenset()
    return frozenset(s.deck[s.drawn :])


def revealed_cards(obj) -> frozenset:
    kind = type(obj)
    if kind is View:
        cards = {card for card in obj.tops if card is not None}
        if obj.revealed is not None:
            cards.add(obj.revealed)
        if obj.latest is not None and obj.latest.card is not None:
            cards.add(obj.latest.card)
        for pile in obj.piles or ():
            cards.update(pile)
        cards.update(obj.deck or ())
        return frozenset(cards)
    if kind is Placed or kind is Revealed:
        return frozenset(() if obj.card is None else (obj.card,))
    if kind is Stopped:
        return frozenset(obj.cards)
    if kind is Started:
        return frozenset(card for deck in obj.decks for card in deck)
    return frozenset()
