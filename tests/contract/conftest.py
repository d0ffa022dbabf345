"""What the contract suites' PostgreSQL and Redis variants share: a pool on
the session database (migrated by the first to open one) and a Redis client
on the session's Redis database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest_asyncio
import redis.asyncio as aioredis

from services.infra.db import create_pool


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(database_url, 3)  # migrates the session database if no one has yet
    yield pool
    await pool.close()


@pytest_asyncio.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(redis_url)
    yield client
    await client.aclose()
