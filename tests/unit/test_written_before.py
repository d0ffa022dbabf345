"""What was written before an upgrade still works after it: a game's log
(the golden files, recorded by earlier versions of the engines and never
rewritten) loads into the service's table copy at its recorded result, and
a job queued by an earlier process (arq keeps its name and arguments) finds
its function with those arguments."""

from __future__ import annotations

import inspect
import json
import uuid
from pathlib import Path

import msgspec
import pytest
from arq.worker import Function

from services.app.ports import NewTable, SeatRow
from services.infra import keys as K
from tests.unit.memory_service import MemoryService
from workers.jobs import FUNCTIONS

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

# The jobs as earlier processes enqueued them: name and positional arguments
# (services/app/games/deadlines.py, agents/dispatch.py, tournaments/).
QUEUED_BEFORE = {
    K.JOB_MOVE_DEADLINE: ("game-id", 12, 1),
    K.JOB_AGENT_DEADLINE: ("game-id", 12, 1),
    K.JOB_CALL_AGENT: ("game-id", 12, 1, 1_765_000_000_000.0, True),
    K.JOB_RECORD_TABLE: ("game-id",),
    K.JOB_START_TOURNAMENT: ("tournament-id",),
}


@pytest.mark.asyncio(loop_scope="function")
@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
async def test_a_log_written_before_loads_at_its_recorded_result(path: Path) -> None:
    head, *steps = [json.loads(line) for line in path.read_text().splitlines()]
    service = MemoryService()
    game_id = str(uuid.uuid4())
    stores = service.stores
    await stores.lobby.insert_table(NewTable(game_id, head["game"], head["players"], {}, False, head["seed"]))
    await stores.lobby.insert_seats(game_id, [SeatRow(i, None, bot) for i, bot in enumerate(head["bots"])])
    await stores.lobby.set_status(game_id, "playing")
    await stores.events.create_stream(game_id, "game")
    version = 0
    for step in steps:
        batch = [(e["type"], msgspec.json.encode(e)) for e in step["events"]]
        version = await stores.events.append(game_id, version, batch)
    table = await service.games.load(game_id)
    assert table.version == version and table.over
    result = msgspec.to_builtins(table.game.result(table.state))
    assert {k: result[k] for k in head["result"]} == head["result"]
    await service.close()


def test_a_job_queued_before_finds_its_function_and_arguments() -> None:
    # arq names a bare coroutine by its __qualname__ (timed_job keeps the wrapped one's).
    functions = {
        (f.name if isinstance(f, Function) else f.__qualname__): (f.coroutine if isinstance(f, Function) else f)
        for f in FUNCTIONS
    }
    assert set(QUEUED_BEFORE) <= set(functions)
    for name, args in QUEUED_BEFORE.items():
        inspect.signature(functions[name]).bind({}, *args)  # raises TypeError if they no longer fit
