"""The engine contract every Hanamichi game implements.

A game is a bundle of pure functions over frozen msgspec Structs
(OpenSpiel's shape, in the functional style of the `eventsourcing` examples):

    events = game.start(players, options, chance)          # deals are data
    state  = fold(game, events)                            # evolve() over the log
    seats  = game.to_act(state)                            # possibly several at once
    legal  = game.legal_actions(state, seat, now_ms)       # what decide accepts then
    events = game.decide(state, seat, action, ctx)         # or raises RuleError
    view   = game.view(state, seat)                        # seat=None: spectator

Nothing here does IO, reads a clock or owns a random generator: time arrives
as `Ctx.now_ms` (the server's receive time) and chance as a `Chance`, whose
outcome the engine writes into an event, so folding never draws a number.

Every game's events, actions, states and views are frozen Structs declared
with `gc=False` (all four games alike): a playout makes millions of
them, and untracked they cost the garbage collector nothing. It is safe
because they hold only ints, strings, tuples and other such Structs, so they
can never be part of a reference cycle. Options, made once per table, keep
the default.

A little over 300 lines: the whole contract (Game, Ctx, Chance, RuleError,
settle, the Bot protocol) in one place, which is what a game's author reads.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import msgspec

S = TypeVar("S")
E = TypeVar("E")
A = TypeVar("A")
Opt = TypeVar("Opt", bound=msgspec.Struct)


class RuleError(Exception):
    """A command the rules refuse. `code` is stable (clients switch on it);
    `message` is for people and never names another seat's hidden cards."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class OptionsError(ValueError):
    """Bad table options or player count (`code` is stable)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Ctx(msgspec.Struct, frozen=True):
    """What the service adds to every command: its receive time in ms.

    Games that keep time (Kabuki masks' stop window, KM-3) copy `now_ms`
    into the events they emit; the others ignore it."""

    now_ms: int = 0


class Chance:
    """The source of every shuffle, handed to the engine by its caller.

    Seeded: the same (seed, key) always gives the same order, so a tournament
    can replay identical deals at several tables (duplicate format) and a
    finished game's seed lets anyone re-derive its deals. Fixed: tests and
    replays pass the exact deck orders, keyed like the engine asks for them
    (e.g. "round-1"); a key that is not given falls back to the seed."""

    __slots__ = ("seed", "fixed", "salt")

    def __init__(self, seed: int = 0, fixed: Mapping[str, Sequence[Any]] | None = None, salt: str = "") -> None:
        self.seed = seed
        self.fixed = dict(fixed or {})
        # Provably fair deals: the service draws a random salt
        # (64 hex digits) and passes it in as data, as it does the seed; the
        # engine only publishes `commitment(seed, salt)` at the start and the
        # salt at the end. The salt never feeds a shuffle, so duplicate tables
        # with one deal seed still get identical deals. The empty default is
        # for simulations and tests, where nothing is secret.
        self.salt = salt

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.salt)

    def shuffled(self, key: str, items: Sequence[Any]) -> list[Any]:
        if key in self.fixed:
            order = list(self.fixed[key])
            if sorted(map(repr, order)) != sorted(map(repr, items)):
                raise OptionsError("bad_deal", f"the fixed deal {key!r} is not a permutation of the deck")
            return order
        out = list(items)
        random.Random(f"{self.seed}:{key}").shuffle(out)
        return out

    def choice(self, key: str, items: Sequence[Any]) -> Any:
        if key in self.fixed:
            (value,) = self.fixed[key]
            if value not in items:
                raise OptionsError("bad_deal", f"the fixed choice {key!r} is not one of the options")
            return value
        return items[random.Random(f"{self.seed}:{key}").randrange(len(items))]


def commitment(seed: int, salt: str) -> str:
    """The public commitment to a game's deals, published in its first event:
    lowercase hex SHA-256 of the ASCII bytes of the seed in decimal, a colon
    and the salt as the game reveals it (e.g. b"12345:9f0c..."). Anyone can
    recompute it once the final event reveals both (README, "Provably fair
    deals")."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


CLIENT_SEED_MAX = 64  # characters of printable ASCII


def deal_seed(server_seed: int, client_seeds: Sequence[str]) -> int:
    """The seed a game is dealt from when its seats add entropy: the first 8
    bytes of the SHA-256 of the JSON array (no whitespace, UTF-8) of the
    server's seed in decimal followed by every seat's client seed in seat
    order ("" for a seat that sent none), as a big-endian integer shifted
    right by 2 (62 bits, like the server's seeds). For example
    `sha256('["4125870123456789","a1b2","",""]')`. The server is committed to
    its seed before any client seed is taken, and nobody knows the server's
    seed before the end, so neither side alone can choose the deal
    (docs/fairness.md, "Client seeds")."""
    data = msgspec.json.encode([str(server_seed), *client_seeds])
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") >> 2


def valid_client_seed(value: str) -> bool:
    """At most 64 characters of printable ASCII, so every language writes
    the derivation's JSON array with the same bytes."""
    return len(value) <= CLIENT_SEED_MAX and all(" " <= c <= "~" for c in value)


class Result(msgspec.Struct, frozen=True):
    """A finished game: score per seat, place per seat (1 = first; tied seats
    share a place, as the rules say) and the winning seats."""

    scores: list[float]
    places: list[int]
    winners: list[int]


def places_from(scores: Sequence[float], tiebreak: Sequence[float] | None = None) -> list[int]:
    """Competition ranking ("1224"): seats with equal (score, tiebreak) share a place."""
    keys = [(s, tiebreak[i] if tiebreak else 0) for i, s in enumerate(scores)]
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def settle(evolve: Callable[[Any, Any], Any], automatic: Callable[[Any], list], state: Any, events: list) -> list:
    """The one mechanism for automatic transitions: `events` (taken
    in `state`) followed by every event the rules then take by themselves
    (`Game.automatic`), until a seat or a real timer must move the game.
    Each game's `decide` and `on_timer` end with it, so a table of people
    never waits for anything but a person or the clock."""
    for event in events:
        state = evolve(state, event)
    while more := automatic(state):
        events.extend(more)
        for event in more:
            state = evolve(state, event)
    return events


class Bot(Protocol):
    """A house bot for one seat of one game. It sees what its seat sees:
    `observe` gets the seat's redacted events (memory bots keep what they saw),
    `act` gets the seat's view and legal actions plus an RNG passed in.

    Two flags tell its drivers (the playout, the service's tables) what to
    spare: `blind` (it ignores the view: `act` gets None, and nobody builds
    a view for it) and `observes` (it wants `observe`d events; for the
    others nobody redacts the log per seat). Every bot declares both."""

    blind: bool
    observes: bool

    def observe(self, event: Any) -> None: ...

    def act(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any: ...


BotFactory = Callable[[int, Any], Bot]  # (seat, options) -> Bot


def _start_setup(event: Any) -> tuple[int, Any]:
    """`Game.setup` for the games whose start event has `players` and `options`
    (every game here); a game's event union does not say which member that is."""
    return event.players, event.options


@dataclass(frozen=True)
class Game(Generic[S, E, A, Opt]):
    """A registered game. Every field is a pure function or a type."""

    name: str
    title: str
    min_players: int
    max_players: int
    options_type: type[Opt]
    event_type: Any  # tagged Union of frozen Structs (stable tags)
    action_type: Any  # tagged Union of frozen Structs (stable tags)
    start: Callable[[int, Opt, Chance], list[E]]
    evolve: Callable[[S | None, E], S]
    to_act: Callable[[S], frozenset[int]]
    # legal_actions(state, seat, now_ms=None): exactly what `decide` would
    # accept from the seat at `now_ms` (time is data, as for decide). Games
    # without timed rules ignore `now_ms`; None leaves time out (what the
    # rules allow once every wait is over). Callers with a clock pass it
    # (Kabuki masks offers no Place during the stop window).
    legal_actions: Callable[..., list[A]]
    decide: Callable[[S, int, A, Ctx], list[E]]
    view: Callable[[S, int | None], msgspec.Struct]
    redact: Callable[[E, int | None], E | None]
    is_over: Callable[[S], bool]
    result: Callable[[S], Result]
    bots: Mapping[str, BotFactory]
    # Games with time-driven transitions (KM-5: the round ends once the last
    # placement's stop window has passed) say when the next one is due, and
    # `on_timer` gives its events; for the others both stay trivial.
    next_timer: Callable[[S], int | None] = lambda state: None
    # Seats the table waits for (turn deadlines run for them). Defaults to
    # `to_act`; Kabuki masks narrows it to the placer, since calling "Stop!"
    # is optional and nobody's deadline.
    awaited: Callable[[S], frozenset[int]] | None = None
    on_timer: Callable[[S, Ctx], list[E]] = lambda state, ctx: []
    # The events the rules take by themselves in a state, with no
    # seat acting and no time passing (a trick scored, the next hand or round
    # dealt, the game's end); [] when a seat or a timer moves the game next.
    # `decide` and `on_timer` already end with them (`settle`), so callers
    # never apply them; the conformance suite checks none is left pending,
    # and that a step's events after its first are exactly these (no handler
    # appends one of its own).
    automatic: Callable[[S], list[E]] = lambda state: []
    # Test support for the conformance suite: the card identities a viewer
    # must not know in a state, every card identity a view or a redacted
    # event reveals, and every card in the state (for conservation).
    hidden_cards: Callable[[S, int | None], frozenset] = lambda state, viewer: frozenset()
    revealed_cards: Callable[[Any], frozenset] = lambda obj: frozenset()
    all_cards: Callable[[S], list] = lambda state: []
    # Whole-game figures for the simulator (e.g. "round" counts); optional.
    describe: Callable[[S], dict] = field(default=lambda state: {})
    # GEN-1 (docs/rules/general.md): some cards are public only at their moment (a trick's
    # cards until it is won, a Stop's pile until the next placement). The
    # history of a game in progress (`history`, `past_view`) blanks them for
    # every viewer once their moment has passed. `moment(before, event)` names
    # the moment an event's fleeting cards belong to (None: nothing fleeting;
    # `before` is the state the event applies to), `moments(state)` the
    # moments still lasting in a state, `blank(event)` the event with its
    # fleeting cards blanked, and `blank_view(view, state, lasting)` the view
    # of a past `state` with the cards of moments not in `lasting` blanked.
    # Games with nothing fleeting (Cahoots, CH-9) keep these defaults.
    moment: Callable[[S | None, E], Hashable | None] = lambda state, event: None
    moments: Callable[[S], frozenset] = lambda state: frozenset()
    blank: Callable[[E], E] = lambda event: event
    blank_view: Callable[[Any, S, frozenset], Any] = lambda view, state, lasting: view
    # Test support for GEN-1: the cards of the current deal that were public
    # only at a moment that has passed (the conformance suite checks that no
    # history shows them).
    past_cards: Callable[[S], frozenset] = lambda state: frozenset()
    # For `engines.verify` (provably fair deals): the players and options a
    # start event was made with, so that `start` can be re-run from the
    # revealed seed; the tags of the events that carry chance outcomes (the
    # deals); and the receive time an event records, if any (the `now_ms` a
    # re-played command had: Kabuki masks' times are part of its events).
    setup: Callable[[E], tuple[int, Opt]] = _start_setup
    deal_tags: frozenset[str] = frozenset()
    event_time: Callable[[E], int | None] = lambda event: None

    # --- helpers shared by every caller (service, simulator, tests) ---------

    def waiting_for(self, state: S) -> frozenset[int]:
        return (self.awaited or self.to_act)(state)

    def history(self, log: Sequence[E]) -> list[E]:
        """GEN-1: the engine log as the history of the game shows it, for
        every viewer alike (redact each event for its viewer afterwards).
        While the game runs, an event whose moment has passed by the end of
        `log` has its fleeting cards blanked; once the game is over, the log
        is returned as it is (everything is public)."""
        moment, evolve = self.moment, self.evolve
        keys = []
        state = None
        for event in log:
            keys.append(moment(state, event))
            state = evolve(state, event)
        if state is None or self.is_over(state):
            return list(log)
        lasting, blank = self.moments(state), self.blank
        return [e if key is None or key in lasting else blank(e) for e, key in zip(log, keys, strict=True)]

    def past_view(self, state: S, viewer: int | None, now: S) -> msgspec.Struct:
        """GEN-1: the view of a past `state` (a replay) as the history of the
        game shows it at `now` (its latest state): cards whose moment has
        passed by `now` are blanked, for seats too, until the game is over."""
        view = self.view(state, viewer)
        if self.is_over(now):
            return view
        return self.blank_view(view, state, self.moments(now))

    def make_options(self, raw: Mapping[str, Any] | None) -> Opt:
        """Decode and validate table options; unknown or ill-typed fields
        are an OptionsError with a readable message."""
        try:
            options = msgspec.convert(dict(raw or {}), self.options_type, strict=True)
        except msgspec.ValidationError as exc:
            raise OptionsError("bad_option", f"{self.name} options: {exc}") from None
        check = getattr(options, "validate", None)
        if check is not None:
            check()
        return options

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionsError(
                "bad_player_count",
                f"{self.title} is played by {self.min_players} to {self.max_players} players, not {players}",
            )

    def new_game(self, players: int, options: Opt, chance: Chance) -> list[E]:
        self.check_players(players)
        return self.start(players, options, chance)

    def fold(self, events: Iterable[E], state: S | None = None) -> S:
        evolve = self.evolve
        for event in events:
            state = evolve(state, event)
        return state  # type: ignore[return-value]

    def decode_action(self, raw: Any) -> A:
        """Raw JSON-ish data to an action; bad shape is a RuleError."""
        try:
            return msgspec.convert(raw, self.action_type, strict=False)
        except msgspec.ValidationError as exc:
            raise RuleError("bad_action", f"not a {self.title} action: {exc}") from None
