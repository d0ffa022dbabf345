"""What a long-running process holds does not grow with the games it has
played: finished tables leave the table cache soon after they end, the
cache is bounded by Settings, and the fan-out's per-stream versions too."""

from __future__ import annotations

import pytest

from services.app.games.cache import TableCache
from services.app.games.tables import TableRuntime
from services.config import Settings
from services.infra.fanout import Hub

pytestmark = pytest.mark.asyncio(loop_scope="session")


class FakeTable:
    """What the cache reads of a table: its id, whether it is over, its runtime."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.over = False
        self.runtime = TableRuntime()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class LoadedFromMemory(TableCache):
    """A cache whose loads count instead of querying PostgreSQL."""

    def __init__(self, **kwargs) -> None:
        super().__init__(None, None, **kwargs)  # type: ignore[arg-type]
        self.loads = 0

    async def _load(self, game_id: str):
        self.loads += 1
        return FakeTable(game_id)


async def test_finished_tables_leave_memory_soon_after_they_end():
    clock = Clock()
    cache = LoadedFromMemory(capacity=10_000, finished_linger_s=30.0, clock=clock)
    for n in range(1000):
        table = await cache.get(f"g{n}")
        table.over = True
        cache.on_commit(table, [])
        clock.now += 0.5  # a game ends every half second
    # Those that ended in the last 30 s are still there; none older.
    assert len(cache) <= 61, len(cache)
    assert len(cache._finished) <= 61
    # One that left is read again from the log on demand.
    loads = cache.loads
    again = await cache.get("g0")
    assert again.game_id == "g0" and cache.loads == loads + 1


async def test_a_finished_table_with_a_command_running_stays_until_it_is_done():
    clock = Clock()
    cache = LoadedFromMemory(finished_linger_s=1.0, clock=clock)
    table = await cache.get("busy")
    table.over = True
    cache.on_commit(table, [])
    async with table.runtime.lock:
        clock.now += 5
        await cache.get("other")
        assert await cache.get("busy") is table
    clock.now += 5
    await cache.get("other")
    assert "busy" not in cache._tables


async def test_tables_in_play_are_bounded_by_capacity():
    cache = LoadedFromMemory(capacity=50)
    for n in range(500):
        await cache.get(f"g{n}")
    assert len(cache) == 50


async def test_the_bounds_come_from_settings(monkeypatch):
    monkeypatch.setenv("HANAMICHI_TABLE_CACHE", "123")
    monkeypatch.setenv("HANAMICHI_FINISHED_TABLE_LINGER_S", "7.5")
    settings = Settings.from_env()
    assert (settings.table_cache_size, settings.finished_table_linger_s) == (123, 7.5)


async def test_the_fan_out_forgets_the_streams_noticed_least_recently():
    hub = Hub(None, None, latest_capacity=100)
    for n in range(10_000):
        hub._noticed(f"s{n}", 1)
    hub._noticed("s9950", 2)  # noticed again: now the newest
    assert len(hub.latest) == 100
    assert hub.latest_version("s9999") == 1 and hub.latest_version("s0") == 0
    assert list(hub.latest)[-1] == "s9950"
