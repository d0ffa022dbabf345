"""A stack of its own for a test module: an API server and, if asked, a
worker on a fresh PostgreSQL database and a Redis index of their own, with
settings the session's shared server does not have (a module that needs
round-end analyses, or a tiny rate limit, must not change the others')."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import ServerProcess, WorkerProcess, free_test_port, fresh_database, fresh_redis_db


@contextlib.contextmanager
def own_stack(
    servers: tuple[str, str], server_env: dict[str, str], log_dir: Path, with_worker: bool, **settings: str
) -> Iterator[ServerProcess]:
    with fresh_database(servers[0]) as database, fresh_redis_db(servers[1]) as redis:
        env = {**server_env, "DATABASE_URL": database, "REDIS_URL": redis, **settings}
        server = ServerProcess(free_test_port(), env)
        server.start()
        worker = WorkerProcess(env, log_dir / "worker.log").start() if with_worker else None
        try:
            yield server
        finally:
            if worker is not None:
                worker.stop()
            server.stop()
