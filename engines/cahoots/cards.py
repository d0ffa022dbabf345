"""The Cahoots deck and identity cards as small ints.

A card is an int 0..47: suit = card >> 3, and card & 7 indexes the suit's
eight values (4, 5, 5, 6, 6, 7, 7, 8), so the two copies of a 5 (or 6, 7) are
distinct cards. Suits and identity cards follow docs/rules/cahoots.md (CH-1)."""

from __future__ import annotations

SUITS = ("hearts", "spades", "clubs", "diamonds", "cups", "stars")
HEARTS, SPADES, CLUBS, DIAMONDS, CUPS, STARS = range(6)
RANK_VALUES = (4, 5, 5, 6, 6, 7, 7, 8)

DECK = tuple(range(48))
SUIT_OF = tuple(card >> 3 for card in DECK)
VALUE_OF = tuple(RANK_VALUES[card & 7] for card in DECK)
# 3 players: one 5 and one 7 of each suit leave the deck and form the
# face-down reserve (rulebook set-up; CH-6 draws from it).
RESERVE_RANKS = (2, 6)
THREE_PLAYER_RESERVE = tuple(card for card in DECK if card & 7 in RESERVE_RANKS)
THREE_PLAYER_DECK = tuple(card for card in DECK if card & 7 not in RESERVE_RANKS)

# CH-1: I1..I4 (indices 0..3); every pair shares exactly one suit.
IDENTITIES = (
    (SPADES, HEARTS, STARS),
    (CLUBS, HEARTS, CUPS),
    (CLUBS, DIAMONDS, STARS),
    (SPADES, DIAMONDS, CUPS),
)
IDENTITY_MASKS = tuple(sum(1 << suit for suit in suits) for suits in IDENTITIES)
POPCOUNT = tuple(bin(mask).count("1") for mask in range(64))

TRICKS = 11  # CH-2
HAND_SIZE = 12
POINTS_PER_TRICK = 4  # CH-5, CH-6


def card(suit: int | str, value: int, copy: int = 0) -> int:
    """The card id of `value` in `suit` (copy 0 or 1 for the doubled values)."""
    if isinstance(suit, str):
        suit = SUITS.index(suit)
    rank = RANK_VALUES.index(value) + copy
    if RANK_VALUES[rank] != value:
        raise ValueError(f"there is no copy {copy} of the {value} of {SUITS[suit]}")
    return suit * 8 + rank


def card_name(card_id: int) -> str:
    return f"{VALUE_OF[card_id]} of {SUITS[SUIT_OF[card_id]]}"
