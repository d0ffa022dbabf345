"""The Kabuki mask cards as small ints (docs/rules/kabuki-masks.md, KM-1..KM-7).

A card is an int 0..49: 10 mask kinds, 5 identical copies each, so a card's
kind is `card // COPIES` (only identical masks match, KM-4). The table has 4
actor piles; a game is 3 rounds (KM-6)."""

from __future__ import annotations

ROUNDS = 3  # KM-6
PILES = 4
KINDS = 10
COPIES = 5
CARDS = tuple(range(KINDS * COPIES))  # card id -> mask kind id // COPIES
EMPTY_PILES: tuple[tuple[int, ...], ...] = ((),) * PILES


def tokens_per_round(players: int) -> int:
    return 5 if players <= 4 else 4
