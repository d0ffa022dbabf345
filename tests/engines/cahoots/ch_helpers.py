"""Builders for Cahoots tests: games with fixed hands and a tiny table driver."""

from __future__ import annotations

from engines.cahoots import GAME
from engines.cahoots.actions import Keep, Kill, Pick, Play
from engines.cahoots.cards import DECK, THREE_PLAYER_DECK, THREE_PLAYER_RESERVE, card
from engines.core import Chance, Ctx

I1, I2, I3, I4 = range(4)


def c(name: str) -> int:
    """'8S' / '5Cu' / '6D#1' -> card id (suffix #1 = the second copy)."""
    copy = 0
    if "#" in name:
        name, copy_text = name.split("#")
        copy = int(copy_text)
    suits = {"H": "hearts", "S": "spades", "C": "clubs", "D": "diamonds", "Cu": "cups", "St": "stars"}
    return card(suits[name[1:]], int(name[0]), copy)


def deck_with(players: int, hands: dict[int, list[int]]) -> list[int]:
    """A deal order giving each seat the listed cards (filled up to 12)."""
    pool = [x for x in (DECK if players == 4 else THREE_PLAYER_DECK) if all(x not in h for h in hands.values())]
    order: list[int] = []
    for seat in range(players):
        hand = list(hands.get(seat, []))
        while len(hand) < 12:
            hand.append(pool.pop(0))
        order.extend(hand)
    return order


class Table:
    """A game from `start` with a fixed chance; `act` decides and applies."""

    def __init__(self, players=4, identities=(I1, I2, I3, I4), dealer=0, hands=None, reserve=None, **options):
        rest = [i for i in range(4) if i not in identities[:players]]
        fixed = {
            "identities": list(identities[:players]) + rest,
            "dealer": [dealer],
            "round-1": deck_with(players, hands or {}),
        }
        if players == 3:
            fixed["reserve"] = list(reserve or THREE_PLAYER_RESERVE)
        self.options = GAME.make_options(options)
        self.events = GAME.new_game(players, self.options, Chance(seed=42, fixed=fixed))
        self.state = GAME.fold(self.events)

    def act(self, seat: int, action) -> list:
        events = GAME.decide(self.state, seat, action, Ctx(0))
        self.events.extend(events)
        self.state = GAME.fold(events, self.state)
        return events

    def play(self, *names: str) -> None:
        """Play cards in turn order, each by the seat whose turn it is."""
        for name in names:
            self.act(self.state.actor, Play(c(name) if isinstance(name, str) else name))

    def choose(self, *moves: str) -> None:
        """Moves like '+8S' (keep) or '-7Cu' (kill), by whoever's turn it is."""
        for move in moves:
            kind = Keep if move[0] == "+" else Kill
            self.act(self.state.actor, kind(c(move[1:])))

    def pick(self, name: str) -> None:
        self.act(self.state.actor, Pick(c(name)))

    def play_any_trick(self) -> None:
        """Play a whole trick with the first legal action each time."""
        trick = self.state.trick
        while self.state.trick == trick and not GAME.is_over(self.state) and self.state.actor >= 0:
            self.act(self.state.actor, GAME.legal_actions(self.state, self.state.actor)[0])
