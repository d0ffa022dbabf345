"""Kabuki masks on a lean, mutable playout state: the expert's
search plays here instead of through the engine's frozen states, events,
validation and views. Plain lists and ints; no clock (KM-3's window only
orders who speaks first, which the turn model below does without time).

Checked against the real engine side by side by tests/engines/test_lean_kabuki_masks.py:
legal moves, scores, piles and tokens at every step of random games, the
heuristic's choices, and `playout` against `ExpertBot._playout` exactly.

An action is an int: 0..3 places the revealed card on that pile (KM-1),
STOP calls Stop on the latest placement (KM-2)."""

from __future__ import annotations

import random

from engines.kabuki_masks.cards import CARDS, COPIES, KINDS, PILES, ROUNDS, tokens_per_round

STOP = PILES
KIND = tuple(card // COPIES for card in CARDS)
MAX_PLAYOUT_STEPS = 2000  # engines/expert.py's bound on a playout
RANDOM_STOP_PROBABILITY = 0.05  # the `random` bot's (engines/kabuki_masks/bots.py)


class Lean:
    __slots__ = (
        "players",
        "round",
        "tokens",
        "banked",
        "piles",
        "counts",
        "decks",
        "drawn",
        "revealed",
        "placer",
        "placements",
        "last_seat",
        "last_pile",
        "called",
        "ended_by",
        "over",
    )

    def __init__(self, players: int, decks) -> None:
        self.players = players
        self.decks = decks  # every round's deck order (a world's: sampled where hidden)
        self.round = 0
        self.tokens = [0] * players
        self.banked = [0] * players  # KM-6
        self.piles: list[list[int]] = [[] for _ in range(PILES)]  # cards, bottom to top
        self.counts = [0] * (PILES * KINDS)  # counts[pile * KINDS + kind]: that mask's copies in the pile
        self.drawn = 0
        self.revealed: int | None = None
        self.placer: int | None = None
        self.placements = 0
        self.last_seat: int | None = None  # the latest placement of this round, open to Stop until `called`
        self.last_pile = 0
        self.called = False
        self.ended_by: int | None = None
        self.over = False


def from_state(s) -> Lean:
    """The lean copy of the engine's folded `State` (every card known: a world).
    Between a round's end and the next round's start the engine settles at
    once (rules.automatic), so a folded state is always inside a round."""
    g = Lean(s.players, s.decks)
    g.round, g.tokens, g.banked = s.round, list(s.tokens), list(s.banked)
    g.piles = [list(pile) for pile in s.piles]
    counts = g.counts
    for p, pile in enumerate(g.piles):
        for card in pile:
            counts[p * KINDS + KIND[card]] += 1
    g.drawn, g.revealed, g.placer, g.placements = s.drawn, s.revealed, s.placer, s.placements
    g.last_seat, g.last_pile, g.called = s.last_seat, s.last_pile, s.called
    g.ended_by, g.over = s.ended_by, s.over
    return g


def new_game(players: int, rng: random.Random) -> Lean:
    """A fresh deal (rules.start's shape: every round's deck, then the first player)."""
    decks = []
    for _ in range(ROUNDS):
        deck = list(CARDS)
        rng.shuffle(deck)
        decks.append(deck)
    g = Lean(players, decks)
    _start_round(g, 1, rng.randrange(players))
    return g


def _start_round(g: Lean, number: int, first: int) -> None:
    g.round = number
    g.tokens = [tokens_per_round(g.players)] * g.players
    g.piles = [[] for _ in range(PILES)]
    g.counts = [0] * (PILES * KINDS)
    g.drawn, g.revealed, g.placer = 1, g.decks[number - 1][0], first  # KM-1
    g.last_seat, g.called = None, False


def _end_round(g: Lean, ended_by: int) -> None:
    """KM-5/KM-6: bank the tokens; the next round is started by `ended_by`."""
    g.banked = [b + t for b, t in zip(g.banked, g.tokens, strict=True)]
    g.ended_by = ended_by
    if g.round == ROUNDS:
        g.over, g.placer, g.last_seat = True, None, None
    else:
        _start_round(g, g.round + 1, ended_by)


def can_stop(g: Lean, seat: int) -> bool:
    """KM-2: the latest placement, not yet called, by anyone but its placer."""
    return g.last_seat is not None and not g.called and seat != g.last_seat and not g.over


def legal(g: Lean, seat: int) -> list[int]:
    """rules.legal_actions once every wait is over: Stop first, then the piles."""
    out = [STOP] if can_stop(g, seat) else []
    if seat == g.placer:
        out.extend(range(PILES))
    return out


def matches(g: Lean) -> int:
    """KM-4: covered cards in the latest pile like its top."""
    pile = g.piles[g.last_pile]
    return g.counts[g.last_pile * KINDS + KIND[pile[-1]]] - 1


def place(g: Lean, seat: int, pile: int) -> None:
    # Only the placer places, and it has the revealed card: an invariant of
    # `Lean`'s fields that their types cannot state (and no check in playouts).
    card: int = g.revealed  # type: ignore[assignment]
    g.piles[pile].append(card)
    g.counts[pile * KINDS + KIND[card]] += 1
    g.placements += 1
    g.last_seat, g.last_pile, g.called = seat, pile, False
    deck = g.decks[g.round - 1]
    if g.drawn < len(deck):
        g.revealed, g.placer = deck[g.drawn], (seat + 1) % g.players
        g.drawn += 1
    else:
        g.revealed = g.placer = None


def stop(g: Lean, seat: int) -> None:
    """KM-4: each match moves a token from placer to caller (as many as the
    placer has); none: the caller returns one to the box. KM-5: the round
    ends on a last token lost, or after the deck's last card's Stop."""
    found = matches(g)
    # A Stop needs a latest placement (`can_stop`), so `last_seat` is set.
    placer: int = g.last_seat  # type: ignore[assignment]
    tokens = g.tokens
    moved = min(found, tokens[placer])
    returned = 0 if found else min(1, tokens[seat])
    tokens[placer] -= moved
    tokens[seat] += moved - returned
    g.called = True
    if moved and tokens[placer] == 0:
        _end_round(g, placer)
    elif returned and tokens[seat] == 0:
        _end_round(g, seat)
    elif g.placer is None:
        _end_round(g, placer)


def act(g: Lean, seat: int, action: int) -> None:
    if action == STOP:
        stop(g, seat)
    else:
        place(g, seat, action)


def timer(g: Lean) -> bool:
    """rules.on_timer: the deck's last card, unchallenged, ends the round (KM-5)."""
    if g.placer is None and g.last_seat is not None and not g.called and not g.over:
        _end_round(g, g.last_seat)
        return True
    return False


def safest(g: Lean, card: int) -> list[int]:
    """The heuristic's piles for `card`: the fewest copies of its mask (perfect memory)."""
    kind, counts = KIND[card], g.counts
    risks = [counts[p * KINDS + kind] for p in range(PILES)]
    least = min(risks)
    return [p for p in range(PILES) if risks[p] == least]


def heuristic(g: Lean, seat: int, rng: random.Random, may_place: bool = True) -> int | None:
    """bots.MemoryBot with perfect memory: Stop on a known match, else place
    (when placing is offered) on a random one of the safest piles."""
    if can_stop(g, seat) and matches(g):
        return STOP
    if seat != g.placer or not may_place:
        return None
    # The placer has the revealed card to place (as in `place`).
    return rng.choice(safest(g, g.revealed))  # type: ignore[arg-type]


def lean_action(g: Lean, seat: int, action) -> int | None:
    """An engine action as an int, or None where rules.decide would refuse it."""
    pile = getattr(action, "pile", None)
    if pile is not None:
        return pile if seat == g.placer and type(pile) is int and 0 <= pile < PILES and not g.over else None
    placement = getattr(action, "placement", -1)
    if placement == -1 or (placement is not None and placement != g.placements) or not can_stop(g, seat):
        return None
    return STOP


def play(g: Lean, rng: random.Random, horizon: int = 1, start_round: int | None = None) -> int:
    """Heuristic bots in every seat, under ExpertBot._playout's turn model
    (the simulator's): while the latest placement is open, the seats other
    than its placer and the next placer are asked in a random order and the
    first with a match calls Stop; then the placer (Stop first, then its
    card); with nobody to ask, the timer ends the round. Stops after
    `horizon` round changes (from `start_round`, by default the current) or
    at the game's end; returns the steps taken, counted as the engine path
    counts them (the clockless budget)."""
    start_round = g.round if start_round is None else start_round
    left, steps = horizon, 0
    players = range(g.players)
    for _ in range(MAX_PLAYOUT_STEPS):
        steps += 1
        if g.over:
            break
        if g.round != start_round:
            left -= 1
            if not left:
                break
            start_round = g.round
        last, placer = g.last_seat, g.placer
        if last is not None and not g.called:
            chances = [s for s in players if s != last and s != placer]
            if len(chances) > 1:
                rng.shuffle(chances)  # the same draws as the engine path's: the same caller
            if chances and matches(g):
                stop(g, chances[0])
                continue
        if placer is not None:
            # The placer always has a move (a pile, or Stop): `heuristic` gives None
            # only to another seat or with placing held back.
            act(g, placer, heuristic(g, placer, rng))  # type: ignore[arg-type]
        elif not timer(g):
            break
    return steps


def lead(scores, seat: int) -> float:
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def playout(state, seat: int, action, seed: int, options=None, horizon: int = 1) -> tuple[float, int] | None:
    """ExpertBot._playout on the lean state: the seat's `action` (None if the
    engine would refuse it), then `play`; the seat's lead in banked tokens
    (KM-6) over the best other seat, and the steps taken."""
    g = from_state(state)
    move = lean_action(g, seat, action)
    if move is None:
        return None
    start_round = g.round  # the seat's own move may end the round
    act(g, seat, move)
    steps = play(g, random.Random(seed), horizon, start_round)
    return lead(g.banked, seat), steps


def random_game(players: int, options, rng: random.Random) -> list[int]:
    """A whole game of random play from a fresh deal (`simulate --calibrate`):
    the `random` bot's, Stop by each other seat with a small probability
    after every placement, else the placer's pile uniformly at random."""
    g = new_game(players, rng)
    rand = rng.random
    while not g.over:
        last = g.last_seat
        if last is not None and not g.called:
            caller = next((s for s in range(players) if s != last and rand() < RANDOM_STOP_PROBABILITY), None)
            if caller is not None:
                stop(g, caller)
                continue
        if g.placer is not None:
            place(g, g.placer, int(rand() * PILES))
        else:
            timer(g)
    return g.banked
