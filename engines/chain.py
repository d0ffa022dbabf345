"""A log nobody can quietly rewrite: the keyed hash chain of a stream.

Pure (no IO, clock or randomness): the event stores link each event as they
write it (services/infra/eventstore.py, memory_eventstore.py), and
`hanamichi verify` recomputes the links from an export (engines/verify.py).
The definition, exactly (docs/fairness.md, "A log nobody can quietly
rewrite"):

    hash_v = sha256_hex(chain_key ":" prev_hash ":" v ":" type ":" canonical)

- `chain_key`: the stream's secret, 64 hex digits drawn when the stream is
  created, revealed only once the game is disclosed;
- `prev_hash`: hash_{v-1}, and 64 zeros for version 1;
- `v`: the version in decimal; `type`: the event's stored type tag;
- `canonical`: the event's JSON with keys sorted and no whitespace (msgspec,
  `order="sorted"`), after `hashed_form` (below);
- everything UTF-8, the hex digits lower case.

The key is what keeps hidden cards hidden: an unkeyed hash of an event
with one unknown card (a draw from about 100 candidates) is found by trying
each, by a seat that knows everything else in the event and the previous
hash."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

GENESIS = "0" * 64  # the prev_hash of version 1
_encode = msgspec.json.Encoder(order="sorted")
_decode = msgspec.json.Decoder()


class Link(msgspec.Struct, frozen=True):
    """One event's place in the chain, as an export line carries it."""

    version: int
    type: str
    event: Any  # the decoded event (builtins)
    prev_hash: str | None
    hash: str | None


class ChainCheck(msgspec.Struct, frozen=True):
    """What the chain of an export shows. `present` False: the game was stored
    before the log was chained (no link to check, which is not a failure)."""

    present: bool
    ok: bool  # every link recomputes and names the one before (True when absent)
    receipts_ok: bool | None  # None: no receipts given
    problems: list[str] = []


class Receipt(msgspec.Struct, frozen=True):
    """What a player keeps: the chain head at a version (docs/fairness.md)."""

    version: int
    chain_head: str


def hashed_form(tag: str, event: Any) -> Any:
    """The event data a link hashes. The one adjustment: an hm.game_finished
    names its people's seats at read time (services/app/upcast.py: no event
    carries a name, a person may rename or delete their account), so their
    `name` is hashed as stored, null. A house bot's seat keeps its bot name."""
    if tag == "hm.game_finished" and isinstance(event, dict) and isinstance(event.get("seats"), list):
        seats = [
            {**s, "name": None} if isinstance(s, dict) and s.get("kind") != "bot" and "name" in s else s
            for s in event["seats"]
        ]
        return {**event, "seats": seats}
    return event


def canonical(tag: str, event: Any) -> bytes:
    """The canonical JSON of decoded event data. The export re-encodes the
    events a table holds decoded, so an event type that gains a field must
    leave it out while it has its default (msgspec's omit_defaults), or the
    links of events stored before the field stop recomputing."""
    return _encode.encode(hashed_form(tag, event))


def canonical_stored(tag: str, data: bytes) -> bytes:
    """The canonical JSON of stored event bytes. Bytes that are not JSON
    (only tests write such) are hashed as they are: the chain never refuses
    an append for its data (what is not bytes at all, the write refuses)."""
    try:
        return canonical(tag, _decode.decode(data))
    except (msgspec.DecodeError, TypeError):
        return bytes(data) if isinstance(data, bytes | bytearray | memoryview) else b""


def link(chain_key: str, prev_hash: str, version: int, tag: str, canonical_json: bytes) -> str:
    """hash_v of the definition above."""
    head = f"{chain_key}:{prev_hash}:{version}:{tag}:".encode()
    return hashlib.sha256(head + canonical_json).hexdigest()


def extend(chain_key: str, head: str | None, first: int, events: Sequence[tuple[str, bytes]]) -> list[str]:
    """The hashes of stored events written from version `first` on, after
    the chain's head (None before version 1)."""
    out: list[str] = []
    prev = head or GENESIS
    for version, (tag, data) in enumerate(events, start=first):
        prev = link(chain_key, prev, version, tag, canonical_stored(tag, data))
        out.append(prev)
    return out


def check(links: Sequence[Link], chain_key: str | None, receipts: Iterable[Receipt] | None = None) -> ChainCheck:
    """Recompute every link of an export with its revealed key; with
    receipts, check that the log's hash at each receipt's version is the
    receipt's head (so the log up to there is the one the player saw)."""
    if not links or all(ln.hash is None and ln.prev_hash is None for ln in links):
        absent = ["this game was stored before the log was chained: there is no chain to check"]
        return ChainCheck(False, True, None if receipts is None else False, absent)
    problems: list[str] = []
    if chain_key is None:
        problems.append("the export reveals no chain key: the links cannot be recomputed")
    prev = GENESIS
    for ln in links:
        if ln.prev_hash != prev:
            problems.append(f"event {ln.version}: prev_hash is not the hash of event {ln.version - 1}")
        if chain_key is not None:
            expected = link(chain_key, ln.prev_hash or "", ln.version, ln.type, canonical(ln.type, ln.event))
            if ln.hash != expected:
                problems.append(f"event {ln.version} ({ln.type}): its hash does not recompute")
        prev = ln.hash or ""
        if len(problems) >= 10:
            problems.append("(further links not reported)")
            break
    ok = not problems
    receipts_ok = None if receipts is None else _check_receipts(links, list(receipts), problems)
    return ChainCheck(True, ok, receipts_ok, problems)


def _check_receipts(links: Sequence[Link], receipts: list[Receipt], problems: list[str]) -> bool:
    by_version = {ln.version: ln.hash for ln in links}
    ok = True
    for receipt in receipts:
        logged = by_version.get(receipt.version)
        if logged is None:
            problems.append(f"receipt at version {receipt.version}: the log has no such event")
            ok = False
        elif logged != receipt.chain_head.lower():
            problems.append(
                f"receipt at version {receipt.version}: the log's hash there is not the chain head the player got"
            )
            ok = False
    return ok


def read_receipts(data: bytes) -> list[Receipt]:
    """A receipts file: a JSON list of {"version": int, "chain_head": hex}
    (other fields, such as the web page's game_id, are ignored)."""
    return msgspec.json.decode(data, type=list[Receipt])


def read_links(data: bytes) -> tuple[list[Link], str | None]:
    """The links of an export (`GET .../export`, one `{version, type, event,
    prev_hash, hash}` object a line; the last line also names the
    `chain_key`) and the revealed key. The format itself is checked by
    engines/verify.py's read_export: a line that is not a record is skipped here."""
    links: list[Link] = []
    key: str | None = None
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            record = _decode.decode(line)
            links.append(
                Link(record["version"], record["type"], record["event"], record.get("prev_hash"), record.get("hash"))
            )
        except (msgspec.DecodeError, KeyError, TypeError, AttributeError):
            continue
        if isinstance(record.get("chain_key"), str):
            key = record["chain_key"]
    return links, key
