"""What each viewer may see (CH-9): hands and the reserve are hidden; played
cards, keep/kill choices, identity cards and scores are public. After the
game ends everything is public."""

from __future__ import annotations

import msgspec

from engines.cahoots.cards import IDENTITIES
from engines.cahoots.events import Chose, Dealt, Picked, Played, Started, TrickScored
from engines.cahoots.options import Options
from engines.cahoots.state import OVER, State, TrickRecord


class View(msgspec.Struct, frozen=True, gc=False):
    players: int
    seat: int | None
    options: Options
    phase: str
    trick: int
    start: int
    dealer: int
    to_act: tuple[int, ...]
    identities: tuple[int, ...]  # identity card (0..3 = I1..I4) per seat
    identity_suits: tuple[tuple[int, ...], ...]  # the suits on each seat's card
    hand: tuple[int, ...]  # the viewer's own hand (empty for a spectator)
    hand_sizes: tuple[int, ...]
    known_hands: tuple[tuple[int, ...], ...]  # per seat: the cards all saw it keep
    table: tuple[tuple[int, int], ...]  # (seat, card) in play order
    choices: tuple[tuple[int, int, bool], ...]  # (seat, card, keep) in order
    pool: tuple[int, ...]  # killed cards waiting for CH-8 picks
    picks: tuple[int, ...]  # seats still to pick (CH-8)
    won: tuple[tuple[int, ...], ...]  # point cards taken per seat (CH-8)
    scores: tuple[int, ...]
    reserve_size: int
    last_trick: TrickRecord | None
    # Only once the game is over (everything public):
    hands: tuple[tuple[int, ...], ...] = ()
    reserve: tuple[int, ...] = ()
    seed: int | None = None


def view(state: State, seat: int | None) -> View:
    n, start = state.players, state.start
    over = state.phase == OVER
    known = state.known
    return View(
        players=n,
        seat=seat,
        options=state.options,
        phase=state.phase,
        trick=state.trick,
        start=start,
        dealer=state.dealer,
        to_act=() if state.actor < 0 else (state.actor,),
        identities=state.identities,
        identity_suits=tuple(IDENTITIES[identity] for identity in state.identities),
        hand=state.hands[seat] if seat is not None else (),
        hand_sizes=tuple(len(hand) for hand in state.hands),
        known_hands=tuple(tuple(card for card in hand if card in known) for hand in state.hands),
        table=tuple(((start + i) % n, card) for i, card in enumerate(state.table)),
        choices=tuple(((start + j) % n, card, keep) for j, (card, keep) in enumerate(state.choices)),
        pool=state.pool,
        picks=state.picks,
        won=state.won,
        scores=state.scores,
        reserve_size=len(state.reserve),
        last_trick=state.last_trick,
        hands=state.hands if over else (),
        reserve=state.reserve if over else (),
        seed=state.seed if over else None,
    )


def redact(event, viewer: int | None):
    kind = type(event)
    if kind is Started:
        # The seed, the deal order and the reserve order stay server-side
        # until GameEnded reveals the seed.
        return Started(event.players, event.options, event.identities, event.dealer, commitment=event.commitment)
    if kind is Dealt:
        return Dealt(tuple(hand if seat == viewer else () for seat, hand in enumerate(event.hands)))
    return event  # Played, Chose, TrickScored, Picked, GameEnded are public (CH-9)


# --- conformance support ----------------------------------------------------


def hidden_cards(state: State, viewer: int | None) -> frozenset:
    if state.phase == OVER:
        return frozenset()
    hidden = set(state.reserve)
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            hidden.update(hand)
    return frozenset(hidden - state.known)


def revealed_cards(obj) -> frozenset:
    kind = type(obj)
    cards: set[int] = set()
    if kind is View:
        cards.update(obj.hand, obj.pool, obj.reserve)
        cards.update(card for _, card in obj.table)
        cards.update(card for _, card, _ in obj.choices)
        for pile in (*obj.won, *obj.hands, *obj.known_hands):
            cards.update(pile)
        if obj.last_trick is not None:
            cards.update(_record_cards(obj.last_trick))
    elif kind is Started:
        cards.update(obj.deck, obj.reserve)
    elif kind is Dealt:
        for hand in obj.hands:
            cards.update(hand)
    elif kind in (Played, Chose, Picked):
        cards.add(obj.card)
    elif kind is TrickScored and obj.reserve_card >= 0:
        cards.add(obj.reserve_card)
    elif kind is TrickRecord:
        cards.update(_record_cards(obj))
    return frozenset(cards)


def _record_cards(record: TrickRecord) -> set[int]:
    cards = set(record.cards)
    if record.reserve_card >= 0:
        cards.add(record.reserve_card)
    return cards


def all_cards(state: State) -> list[int]:
    cards = [*state.reserve, *state.table, *state.pool, *state.discard]
    for pile in (*state.hands, *state.won):
        cards.extend(pile)
    return cards
