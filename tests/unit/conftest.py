"""The unit tier's one fixture: a fresh service on the memory adapters per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from tests.unit.memory_service import MemoryService


@pytest_asyncio.fixture
async def service() -> AsyncIterator[MemoryService]:
    service = MemoryService()
    yield service
    await service.close()
