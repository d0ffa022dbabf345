"""docs/agents.md checked against the service: the test reads the
document and runs what it says.

- The worked signature example: the body's stated length and the signature.
- The pull stream: the keep-alive comment line and its period, every `data:`
  line JSON, and each event's fields exactly as the event table lists them,
  on a live server and worker, while the test plays a game as the document's
  pull loop does (read `your_turn`, GET the game, POST an action).
- The time rule, one for push and pull: `your_turn` carries the table's
  `move_ms` and the bank left; a silent pull agent is struck `timeout` with
  the documented detail `no answer within N ms`."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re

import httpx
import pytest

from tests.conftest import ROOT, WorkerProcess
from tests.service.agent_harness import wait_for
from tests.service.client import ApiClient

DOC = (ROOT / "docs" / "agents.md").read_text()


def _section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.find("\n## ", start + len(title))
    return DOC[start : end if end >= 0 else None]


def test_the_worked_signature_example():
    text = _section("### Verifying the signature")
    secret, timestamp = re.search(r"secret `([^`]+)`, timestamp `(\d+)`, body \((\d+) bytes\)", text).group(1, 2)
    length = int(re.search(r"body \((\d+) bytes\)", text).group(1))
    body = re.search(r"```\n(\{.*\})\n```", text).group(1).encode()
    expected = re.search(r'"(sha256=[0-9a-f]{64})"', text).group(1)
    assert len(body) == length
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    assert "sha256=" + mac == expected
    assert json.loads(body)["deadline_ms"] > 0  # the body is a turn request as documented


def _event_table() -> dict[str, set[str]]:
    """`event` -> the fields the pull section's table lists for its data."""
    out = {}
    for name, fields in re.findall(r"^\| `(\w+)` \| `\{([^}]*)\}`", _section("## Pull: your stream"), re.M):
        out[name] = {f.strip() for f in fields.split(",")}
    return out


def _keepalive_rule() -> tuple[str, int]:
    text = _section("## Pull: your stream")
    rule = re.search(r"A comment line \(`([^`]+)`.*?comes every (\d+) s", text, re.S)
    assert rule is not None, text
    line, period = rule.group(1, 2)
    return line, int(period)


def test_the_document_states_the_rules_this_test_checks():
    table = _event_table()
    assert {"hello", "game_started", "your_turn", "game_ended", "seat_handed_to_bot", "invitation"} <= set(table)
    assert _keepalive_rule() == (": keepalive", 5)
    assert "no answer within N ms" in _section("## Strikes")


class Stream:
    """The agent's stream read as an SSE client would: raw lines, and the
    messages (event, data) they make."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.messages: list[tuple[str | None, dict]] = []
        self.changed = asyncio.Event()

    async def read(self, base_url: str, token: str) -> None:
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=None) as http,
            http.stream("GET", "/api/v1/agents/me/stream", headers={"Authorization": f"Bearer {token}"}) as r,
        ):
            assert r.status_code == 200
            event, data = None, []
            async for line in r.aiter_lines():
                self.lines.append(line)
                if line.startswith("event:"):
                    event = line.partition(":")[2].strip()
                elif line.startswith("data:"):
                    data.append(line.partition(":")[2].strip())
                elif not line and data:
                    self.messages.append((event, json.loads("\n".join(data))))
                    event, data = None, []
                self.changed.set()

    def of(self, event: str, game_id: str | None = None) -> list[dict]:
        return [d for e, d in self.messages if e == event and (game_id is None or d.get("game_id") == game_id)]


@pytest.mark.asyncio(loop_scope="session")
async def test_the_pull_protocol_runs_as_documented(server, server_env, tmp_path):
    table = _event_table()
    keepalive, period_s = _keepalive_rule()
    worker = WorkerProcess(server_env, tmp_path / "worker.log").start()
    owner = await ApiClient.register(server.base_url, "doc reader")
    r = await owner.post("/api/v1/agents", {"name": "doc-puller", "games": ["kabuki-tricks"], "mode": "pull"})
    assert r.status_code == 201, r.text
    agent = ApiClient(server.base_url, token=r.json()["token"])
    stream = Stream()
    reader = asyncio.create_task(stream.read(server.base_url, agent.token))
    try:
        # A game the test plays as the document's pull loop does.
        r = await owner.post(
            "/api/v1/games",
            {"game": "kabuki-tricks", "players": 2, "time_control": {"move_ms": 20_000, "bank_ms": 3_000}},
        )
        game_id = r.json()["game_id"]
        await agent.sit(game_id, 0)
        assert (await owner.post(f"/api/v1/games/{game_id}/bots", {"seat": 1, "bot": "random"})).status_code == 200
        answered: set[int] = set()

        async def play() -> bool:
            for turn in stream.of("your_turn", game_id):
                if turn["version"] not in answered:
                    answered.add(turn["version"])
                    view = await agent.game(game_id)
                    if view["legal_actions"] and view["version"] == turn["version"]:
                        await agent.act(
                            game_id, view["legal_actions"][0], f"{game_id}:{turn['version']}", turn["version"]
                        )
            return bool(stream.of("game_ended", game_id))

        await wait_for(play, 120, 0.05)
        # The keep-alive: the documented comment line, never a data line.
        await wait_for(lambda: _true(keepalive in stream.lines), period_s + 5, 0.1)
        assert not [line for line in stream.lines if line.startswith("data:") and not line[5:].strip()]

        # Every event carries exactly the fields the table lists.
        hello = stream.of("hello")[0]
        assert set(hello) == table["hello"] and hello["keepalive_s"] == period_s
        for event in ("game_started", "your_turn", "game_ended"):
            seen = stream.of(event, game_id)
            assert seen, event
            assert all(set(d) == table[event] for d in seen), (event, seen[0], table[event])
        # One time rule for push and pull: the move's own time, then the bank.
        first = stream.of("your_turn", game_id)[0]
        assert (first["deadline_ms"], first["time_bank_ms"]) == (20_000, 3_000)

        # Silence: struck `timeout`, detail "no answer within N ms" (N = move_ms + bank left).
        r = await owner.post(
            "/api/v1/games", {"game": "kabuki-tricks", "players": 2, "time_control": {"move_ms": 1000, "bank_ms": 0}}
        )
        silent = r.json()["game_id"]
        await agent.sit(silent, 0)
        assert (await owner.post(f"/api/v1/games/{silent}/bots", {"seat": 1, "bot": "random"})).status_code == 200

        async def struck():
            events = (await owner.get(f"/api/v1/games/{silent}/events", after=0)).json()["events"]
            return [e["event"] for e in events if e["event"]["type"] == "hm.move_played_for_seat"]

        strike = (await wait_for(struck, 20, 0.2))[0]
        assert (strike["reason"], strike["detail"]) == ("timeout", "no answer within N ms".replace("N", "1000"))
    finally:
        reader.cancel()
        worker.stop()


async def _true(value: bool) -> bool:
    return value
