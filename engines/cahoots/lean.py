"""A lean Cahoots playout state for the expert's search.

The service path folds frozen msgspec states from events, validates every
action and builds views for bots; a playout needs none of that. `Lean` is a
mutable copy of a folded `State` in plain lists and ints (the expert's world
has every hidden card filled in), with the engine's legal moves, transitions
and scoring (CH-2..CH-8), and `heuristic`, the engine's heuristic bot
(engines/cahoots/bots.py) read off the lean state. Move and hand orders are
the engine's, so the heuristic's first-best tie-breaks pick the same move.
tests/engines/test_lean_cahoots.py plays it side by side with the engine.

A move is an int: a card (0..47) plus its kind's base (PLAY 0, KEEP 64,
KILL 128, PICK 192). About 350 lines: the state, the heuristic
read off it and the playout that drives both are one unit, tested as one."""

from __future__ import annotations

import random

from engines.cahoots.actions import KEEP as KEEP_ACTIONS
from engines.cahoots.actions import KILL as KILL_ACTIONS
from engines.cahoots.actions import PICK as PICK_ACTIONS
from engines.cahoots.actions import PLAY as PLAY_ACTIONS
from engines.cahoots.actions import Keep, Kill, Pick, Play
from engines.cahoots.cards import (
    DECK,
    HAND_SIZE,
    IDENTITIES,
    THREE_PLAYER_DECK,
    THREE_PLAYER_RESERVE,
    TRICKS,
    VALUE_OF,
)
from engines.cahoots.rules import pick_order, trick_points
from engines.cahoots.state import CHOOSE as S_CHOOSE
from engines.cahoots.state import ENDED, SCORING
from engines.cahoots.state import OVER as S_OVER
from engines.cahoots.state import PICK as S_PICK
from engines.cahoots.state import PLAY as S_PLAY
from engines.expert import MAX_PLAYOUT_STEPS

PLAY, CHOOSE, PICK, OVER = range(4)  # lean phases (the engine's SCORING/ENDED never rest: `settle`)
KEEP_BASE, KILL_BASE, PICK_BASE = 64, 128, 192
_BASE = {Play: 0, Keep: KEEP_BASE, Kill: KILL_BASE, Pick: PICK_BASE}
_ACTIONS = (PLAY_ACTIONS, KEEP_ACTIONS, KILL_ACTIONS, PICK_ACTIONS)

_TABLES: dict[tuple[int, ...], tuple[list, list]] = {}  # identities -> (points, gains), per winning-suit mask


def _tables(identities: tuple[int, ...]) -> tuple[list, list]:
    """CH-5 points per winning-suit mask, and per seat the heuristic's `gain`
    (its points net of the others' mean), the very expression of
    HeuristicBot._play so that the floats, and so the ties, are the same."""
    tables = _TABLES.get(identities)
    if tables is None:
        n = len(identities)
        points = [
            trick_points(tuple(s for s in range(6) if mask >> s & 1), identities) if mask else (0,) * n
            for mask in range(64)
        ]
        gains = [[p[seat] - (sum(p) - p[seat]) / (n - 1) for p in points] for seat in range(n)]
        tables = _TABLES[identities] = (points, gains)
    return tables


def winning_mask(totals: list[int]) -> int:
    """The suits with the highest total (CH-5), as a bit mask."""
    best = max(totals)
    return (
        (totals[0] == best)
        | (totals[1] == best) << 1
        | (totals[2] == best) << 2
        | (totals[3] == best) << 3
        | (totals[4] == best) << 4
        | (totals[5] == best) << 5
    )


def encode(action) -> int:
    return _BASE[type(action)] + action.card


def decode(move: int):
    return _ACTIONS[move >> 6][move & 63]


class Lean:
    __slots__ = (
        "n",
        "face",
        "identities",
        "points",
        "gains",
        "mine",
        "others",
        "hands",
        "scores",
        "trick",
        "start",
        "phase",
        "actor",
        "table",
        "totals",
        "free",
        "chosen",
        "keeps",
        "pool",
        "picks",
        "reserve",
    )

    def __init__(
        self,
        players: int,
        face: bool,
        identities: tuple[int, ...],
        start: int,
        hands: list[list[int]],
        reserve: list[int],
    ) -> None:
        self.n, self.face, self.identities = players, face, identities
        self.points, self.gains = _tables(identities)
        self.mine = [IDENTITIES[i] for i in identities]
        self.others = [tuple(s for s in range(6) if s not in IDENTITIES[i]) for i in identities]
        self.hands, self.reserve = hands, reserve
        self.scores = [0] * players
        self.trick, self.start, self.phase, self.actor = 1, start, PLAY, start
        self.table: list[int] = []  # card i is seat (start + i) % n's (CH-3)
        self.totals = [0] * 6  # the table's suit totals
        self.free: list[int] = []  # table cards not yet kept or killed (CH-4)
        self.chosen: list[int] = []  # keep/kill choices in order: choice j is seat (start + j) % n's
        self.keeps: list[bool] = []
        self.pool: list[int] = []  # killed cards waiting for picks (CH-8)
        self.picks: list[int] = []  # seats still to pick, in order (CH-8)

    @classmethod
    def from_state(cls, state) -> Lean:
        """A lean copy of an engine `State` (a dealt one)."""
        lean = cls(
            state.players,
            state.options.face_value_scoring,
            state.identities,
            state.start,
            [list(hand) for hand in state.hands],
            list(state.reserve),
        )
        lean.scores = list(state.scores)
        lean.trick, lean.actor = state.trick, state.actor
        lean.table = list(state.table)
        for card in state.table:
            lean.totals[card >> 3] += VALUE_OF[card]
        lean.free = list(state.free)
        lean.chosen = [card for card, _ in state.choices]
        lean.keeps = [keep for _, keep in state.choices]
        lean.pool, lean.picks = list(state.pool), list(state.picks)
        phase = state.phase
        if phase == S_PLAY:
            lean.phase = PLAY
        elif phase == S_CHOOSE:
            lean.phase = CHOOSE
        elif phase == S_PICK:
            lean.phase = PICK
        elif phase == SCORING:  # not a resting state (decide settles it), but well defined
            lean._score()
        elif phase in (ENDED, S_OVER):
            lean.phase, lean.actor = OVER, -1
        else:
            raise ValueError(f"no lean state for phase {phase!r}")
        return lean

    # --- moves ------------------------------------------------------------

    def moves(self) -> list[int]:
        """The actor's legal moves, in `rules.legal_actions`' order."""
        phase = self.phase
        if phase == PLAY:
            return self.hands[self.actor][:]
        if phase == CHOOSE:
            free = self.free
            j, n = len(self.chosen), self.n
            if j < n:  # first pass: keep or kill any free card (CH-4)
                return [KEEP_BASE + c for c in free] + [KILL_BASE + c for c in free]
            base = KILL_BASE if self.keeps[j - n] else KEEP_BASE  # second pass: the opposite (CH-4)
            return [base + c for c in free]
        if phase == PICK:
            return [PICK_BASE + c for c in self.pool]
        return []

    def apply(self, move: int) -> None:
        """The actor's `move`, and everything the rules then take by themselves."""
        phase = self.phase
        n = self.n
        if phase == PLAY:  # CH-3
            self.hands[self.actor].remove(move)
            table = self.table
            table.append(move)
            self.totals[move >> 3] += VALUE_OF[move]
            if len(table) < 2 * n:
                self.actor = (self.start + len(table)) % n
            elif self.trick == TRICKS and not self.face:
                self._score()  # CH-7: the last keep/kill needs no choices
            else:
                self.free = table[:]
                self.phase, self.actor = CHOOSE, self.start
        elif phase == CHOOSE:  # CH-4
            card = move & 63
            self.free.remove(card)
            self.chosen.append(card)
            self.keeps.append(move < KILL_BASE)
            j = len(self.chosen)
            if j < 2 * n:
                self.actor = (self.start + j) % n
            else:
                self._score()
        elif phase == PICK:  # CH-8
            card = move & 63
            self.pool.remove(card)
            self.scores[self.picks.pop(0)] += VALUE_OF[card]
            self._picks()
        else:
            raise ValueError("the game is over")

    def _score(self) -> None:
        """CH-5 on the table: kept cards join hands, killed ones (plus a CH-6
        reserve card with 3 players) are the points."""
        n, start = self.n, self.start
        points = self.points[winning_mask(self.totals)]
        if self.chosen:
            killed = []
            last = self.trick == TRICKS
            hands = self.hands
            for j, card in enumerate(self.chosen):
                if not self.keeps[j]:
                    killed.append(card)
                elif not last:  # the last trick's kept cards have no hand to join
                    hands[(start + j) % n].append(card)
        else:  # CH-7 in base scoring: the whole table is scored
            killed = self.table[:]
        if n == 3:
            killed.append(self.reserve.pop(0))  # CH-6
        if self.face:  # CH-8: scorers pick in snake order
            self.pool, self.picks = killed, list(pick_order(points, start))
            self.table, self.chosen, self.keeps, self.totals = [], [], [], [0] * 6  # as the engine's PICK
            self.phase = PICK
            self._picks()
            return
        scores = self.scores
        for seat in range(n):
            scores[seat] += points[seat]
        self._close()

    def _picks(self) -> None:
        """Forced picks (one seat takes every card left, as `rules.automatic`),
        then the next picker, or the trick is over."""
        picks, pool = self.picks, self.pool
        while picks and len(picks) == len(pool) and picks.count(picks[0]) == len(picks):
            self.scores[picks.pop(0)] += VALUE_OF[pool.pop(0)]
        if picks:
            self.phase, self.actor = PICK, picks[0]
            return
        self.pool = []  # CH-5: with three scorers the fourth killed card is nobody's
        self._close()

    def _close(self) -> None:
        """Clear the table; the start player moves left (CH-2) or the game ends."""
        self.table, self.chosen, self.keeps, self.free = [], [], [], []
        self.totals = [0] * 6
        if self.trick == TRICKS:
            self.phase, self.actor = OVER, -1
            return
        self.trick += 1
        self.start = self.actor = (self.start + 1) % self.n
        self.phase = PLAY


# --- the heuristic bot (engines/cahoots/bots.py HeuristicBot), on the lean state ---


def heuristic(lean: Lean, moves: list[int]) -> int:
    phase = lean.phase
    if phase == PLAY:
        return _play(lean, lean.actor, moves)
    if phase == PICK:
        return max(moves, key=lambda move: VALUE_OF[move & 63])
    return _choose(lean, lean.actor, moves)


def _play(lean: Lean, seat: int, moves: list[int]) -> int:
    """HeuristicBot._play: per card, the key (gain, margin * 0.1 - keep_value
    * 0.05), the first best wins. Worked out from the table as it is (its best
    total and winning suits, the best total of my suits and of the others')
    and the one suit the card raises, with the engine's expressions."""
    totals, gains = lean.totals, lean.gains[seat]
    mine = lean.mine[seat]
    top = max(totals)
    winning = winning_mask(totals)
    a, b, c = mine
    mine_top = max(totals[a], totals[b], totals[c])
    x, y, z = lean.others[seat]
    other_top = max(totals[x], totals[y], totals[z])
    best, best_gain, best_rest = -1, 0.0, 0.0
    for card in moves:
        suit, value = card >> 3, VALUE_OF[card]
        total = totals[suit] + value
        if total > top:
            gain = gains[1 << suit]
        elif total == top:
            gain = gains[winning | 1 << suit]
        else:
            gain = gains[winning]
        if suit in mine:
            margin = (total if total > mine_top else mine_top) - other_top
            keep_value = value
        else:
            margin = mine_top - (total if total > other_top else other_top)
            keep_value = -value
        margin = -10 if margin < -10 else 10 if margin > 10 else margin
        rest = margin * 0.1 - keep_value * 0.05
        if best < 0 or gain > best_gain or (gain == best_gain and rest > best_rest):
            best, best_gain, best_rest = card, gain, rest
    return best


def _choose_keys(mine: tuple[int, ...], last: bool, scoring_now: bool) -> list[float]:
    """HeuristicBot._choose's key of every keep/kill move (indexed by move)."""
    keys = [0.0] * 256
    for card in range(48):
        suit, value = card >> 3, VALUE_OF[card]
        keys[KEEP_BASE + card] = 0.0 if last else (value if suit in mine else -value * 0.5)
        # kill: deny the others a card that helps them
        key = 0.0 if last else (-value if suit in mine else value * 0.8)
        if scoring_now:
            key += value  # killed cards are my points (CH-8)
        keys[KILL_BASE + card] = key
    return keys


# [identity][last][scoring_now] -> keys: the few tables there are, made once.
_CHOOSE_KEYS = [
    [[_choose_keys(mine, last, scoring) for scoring in (False, True)] for last in (False, True)] for mine in IDENTITIES
]


def _choose(lean: Lean, seat: int, moves: list[int]) -> int:
    scoring_now = lean.face and lean.points[winning_mask(lean.totals)][seat] > 0
    keys = _CHOOSE_KEYS[lean.identities[seat]][lean.trick == TRICKS][scoring_now]
    return max(moves, key=keys.__getitem__)  # the first best, as the bot's strict `>`


# --- the expert's playout and the calibration game --------------------------


def playout(state, seat: int, action, horizon: int) -> tuple[int, int] | None:
    """`ExpertBot._playout` on the lean state: the seat's `action` (None if
    the engine would refuse it), then heuristic play until the trick number
    (the Search's `round_of`) has changed `horizon` times or the game ends.
    Returns the seat's lead over the best other seat and the steps the
    engine's loop counts (its moves plus the one that stops it), so a
    clockless expert spends its budget exactly as on the engine. No rng: the
    Cahoots heuristic draws none and no two seats ever may act at once."""
    lean = Lean.from_state(state)
    if seat != lean.actor:
        return None
    move = encode(action)
    if move not in lean.moves():
        return None
    start_round = lean.trick
    lean.apply(move)
    left = horizon
    steps = 0
    for _ in range(MAX_PLAYOUT_STEPS):
        steps += 1
        if lean.phase == OVER:
            break
        if lean.trick != start_round:
            left -= 1
            if not left:
                break
            start_round = lean.trick
        moves = lean.moves()
        lean.apply(heuristic(lean, moves))
    scores = lean.scores
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat), steps


def deal(players: int, face: bool, rng: random.Random) -> Lean:
    """A fresh table as `rules.start` sets it (CH-1, CH-2, the deal, CH-6), drawn with `rng`."""
    identities = [0, 1, 2, 3]
    rng.shuffle(identities)
    dealer = rng.randrange(players)
    deck = list(DECK if players == 4 else THREE_PLAYER_DECK)
    rng.shuffle(deck)
    reserve = list(THREE_PLAYER_RESERVE) if players == 3 else []
    rng.shuffle(reserve)
    hands = [deck[seat * HAND_SIZE : (seat + 1) * HAND_SIZE] for seat in range(players)]
    return Lean(players, face, tuple(identities[:players]), dealer, hands, reserve)


def random_game(players: int, options, rng: random.Random) -> list[int]:
    """A whole game of uniformly random legal moves; the final scores."""
    lean = deal(players, options.face_value_scoring, rng)
    moves, apply, random_ = lean.moves, lean.apply, rng.random
    while lean.phase != OVER:
        legal = moves()
        apply(legal[int(random_() * len(legal))])
    return lean.scores
