"""A process that starts while PostgreSQL is down waits for it instead of
failing its start: uvicorn stops every API process of `serve` when one fails
to start, so an API process restarted during an outage took the whole serve
down with it (found by `hanamichi bench faults`).

Against a PostgreSQL this test starts itself, in a folder of its own under
/tmp: never the machine's shared server."""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
from pathlib import Path

import pytest

from services.infra.db import create_pool
from services.tools.embedded import _stop_postgres, start_postgres

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_pool_waits_for_a_postgresql_that_comes_back(caplog):
    folder = Path(tempfile.mkdtemp(prefix="hm-startwait-", dir="/tmp"))
    try:
        dsn = await asyncio.to_thread(start_postgres, folder)
        await asyncio.to_thread(_stop_postgres, folder)
        caplog.set_level(logging.WARNING, logger="hanamichi")
        opening = asyncio.create_task(create_pool(dsn, 1, wait_s=90))
        for _ in range(400):  # until it has found PostgreSQL down at least once
            if any("unreachable at start" in r.getMessage() for r in caplog.records) or opening.done():
                break
            await asyncio.sleep(0.05)
        assert not opening.done(), opening.exception()
        await asyncio.to_thread(start_postgres, folder)
        pool = await asyncio.wait_for(opening, 60)
        try:
            assert await pool.fetchval("SELECT count(*) FROM schema_migrations") > 0
        finally:
            await pool.close()
    finally:
        await asyncio.to_thread(_stop_postgres, folder)
        shutil.rmtree(folder, ignore_errors=True)


async def test_a_refusal_that_is_no_outage_fails_at_once():
    folder = Path(tempfile.mkdtemp(prefix="hm-startwait-", dir="/tmp"))
    try:
        dsn = await asyncio.to_thread(start_postgres, folder)
        with pytest.raises(Exception) as refused:
            await asyncio.wait_for(create_pool(dsn.replace("postgres@", "nobody@"), 1, wait_s=90), 20)
        assert "nobody" in str(refused.value)
    finally:
        await asyncio.to_thread(_stop_postgres, folder)
        shutil.rmtree(folder, ignore_errors=True)
